// The NetBox-shaped server lives beside the bench's servers, which run from the build; tests use the same one.
export * from '../../bench/servers/netbox-fixture.js';
