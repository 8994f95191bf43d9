/**
 * Offline GeoIP/ASN enrichment of events' source addresses: special ranges labelled, country and
 * autonomous system from the shipped databases or an operator's MMDB files (the `geoip` settings).
 */
export { GeoService, shippedGeoDatabases, type GeoipSettings, type ShippedGeoDatabases } from './geo.service.js';
export { addressScope, parseAddress } from './address.rules.js';
