// How long one step of the boot (a Fastify plugin) may take before the boot
// fails: the registry's load grows with its entries (a million: about two
// minutes on mongo-java-server, docs/operations.md#boot; Fastify's default of
// 10 s was about 200,000 there), while a database that stops answering fails
// each round trip sooner (src/db/driver-options.js socketTimeoutMS).
export const PLUGIN_TIMEOUT_MS = 300_000
