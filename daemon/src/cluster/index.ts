/** Several daemons on one MongoDB store: the cross-daemon feed that carries stream messages and cache changes. */
export { DEFAULT_FEED_OPTIONS, FEED_KEEP_MS, FEED_PRUNE_INTERVAL_MS, FeedChannel, isFeedMessage, type ClusterListener, type FeedChannelOptions } from './feed-channel.js';
export { followClusterChanges, type ClusterChangeReactions } from './cluster.changes.js';
