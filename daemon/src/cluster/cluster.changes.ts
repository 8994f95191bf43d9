import type { ClusterListener } from './feed-channel.js';

/** What a daemon does when another daemon on its store changed something it caches. */
export interface ClusterChangeReactions {
  settings(category: string): void;
  apiKeys(): void;
  user(userId: string): void;
}

/**
 * Follows the other daemons' cache changes on the feed: each drops this daemon's copies, as its
 * own change would (this daemon's own changes are skipped: it reacted when it made them).
 * Returns the unsubscribe function.
 */
export function followClusterChanges(feed: { subscribe(listener: ClusterListener): () => void }, on: ClusterChangeReactions): () => void {
  return feed.subscribe((message, _position, fromHere) => {
    if (fromHere || message.type !== 'cluster.changed') return;
    const change = message.data;
    if (change.scope === 'settings') on.settings(change.category);
    else if (change.scope === 'api_keys') on.apiKeys();
    else on.user(change.user_id);
  });
}
