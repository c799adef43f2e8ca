// Medusa v1.20.11 reference server for side-by-side benchmarks (bench/medusa_v1/README.md).
// Everything can be overridden from the environment; the defaults match setup.sh.
const DATABASE_URL =
  process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/medusa_bench"
const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379/7"

module.exports = {
  projectConfig: {
    database_url: DATABASE_URL,
    database_type: "postgres",
    redis_url: REDIS_URL,
    store_cors: process.env.STORE_CORS || "/.*/",
    admin_cors: process.env.ADMIN_CORS || "/.*/",
    jwt_secret: process.env.JWT_SECRET || "medusa-bench-jwt-secret",
    cookie_secret: process.env.COOKIE_SECRET || "medusa-bench-cookie-secret",
  },
  plugins: ["medusa-fulfillment-manual", "medusa-payment-manual"],
  modules: {
    eventBus: {
      resolve: "@medusajs/event-bus-redis",
      options: { redisUrl: REDIS_URL },
    },
    cacheService: {
      resolve: "@medusajs/cache-redis",
      options: { redisUrl: REDIS_URL, ttl: 30 },
    },
  },
  featureFlags: {},
}
