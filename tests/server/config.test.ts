import { describe, expect, it } from "vitest";
import { ConfigError, describeDatabaseUrl, describeRedisUrl, frontendApiHostOf, loadConfig } from "../../server/config";
import { publishableKeyFor } from "./helpers";

const PEM = "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----";
const clerkKeys = { CLERK_PUBLISHABLE_KEY: publishableKeyFor("example.clerk.accounts.dev"), CLERK_SECRET_KEY: "sk_test_abc" };

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("configuration", () => {
  it("defaults: port 3000 on 127.0.0.1 only, X-Forwarded-For not trusted, PGlite in ./.data, local accounts, sandbox voice, closed CORS", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      trustProxy: false,
      logLevel: "info",
      publicUrl: "http://localhost:3000",
      dataDir: "./.data",
      databaseUrl: null,
      redisUrl: null,
      corsOrigins: [],
      seedDemo: true,
      demoEmail: "demo@example.com",
      demoPassword: "demo-password",
      clerk: null,
      consoleDir: "dist/console",
      vapi: { privateKey: null, publicKey: null, apiUrl: "https://api.vapi.ai" },
      modes: { database: "pglite", auth: "local", voice: "sandbox", rateLimit: "memory", calendar: "none" },
    });
  });

  it("empty values count as unset (as a .env file with KEY= leaves them)", () => {
    expect(loadConfig({ PORT: "", DATABASE_URL: "", CLERK_SECRET_KEY: " ", CLERK_PUBLISHABLE_KEY: "" }).modes).toMatchObject({
      database: "pglite",
      auth: "local",
    });
  });

  it("PUBLIC_URL follows PORT unless given, without a trailing slash", () => {
    expect(loadConfig({ PORT: "8080" }).publicUrl).toBe("http://localhost:8080");
    expect(loadConfig({ PUBLIC_URL: "https://voice.example.com/" }).publicUrl).toBe("https://voice.example.com");
  });

  it("a bad PORT names the variable, the rule and the value", () => {
    expect(configError({ PORT: "abc" })).toBe('PORT must be an integer from 1 to 65535 (got "abc")');
    expect(configError({ PORT: "70000" })).toBe('PORT must be an integer from 1 to 65535 (got "70000")');
  });

  it("only one Clerk key names the missing one", () => {
    expect(configError({ CLERK_PUBLISHABLE_KEY: clerkKeys.CLERK_PUBLISHABLE_KEY })).toMatch(/^CLERK_SECRET_KEY is missing/);
    expect(configError({ CLERK_SECRET_KEY: "sk_test_abc" })).toMatch(/^CLERK_PUBLISHABLE_KEY is missing/);
  });

  it("a DATABASE_URL that is not PostgreSQL is refused, with any password hidden", () => {
    const message = configError({ DATABASE_URL: "mysql://root:hunter2@db:3306/app" });
    expect(message).toBe('DATABASE_URL must start with postgres:// or postgresql:// (got "mysql://root:***@db:3306/app")');
  });

  it("secrets are never echoed in an error", () => {
    const message = configError({ ...clerkKeys, CLERK_SECRET_KEY: "not-a-clerk-key-but-secret" });
    expect(message).toBe("CLERK_SECRET_KEY must be a Clerk secret key (sk_test_… or sk_live_…)");
    expect(configError({ BETTER_AUTH_SECRET: "short-secret" })).not.toContain("short-secret");
  });

  it("other bad values name their variable", () => {
    expect(configError({ LOG_LEVEL: "loud" })).toMatch(/^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/);
    expect(configError({ SEED_DEMO: "maybe" })).toBe('SEED_DEMO must be true or false (got "maybe")');
    expect(configError({ CORS_ORIGINS: "https://ok.example.com, not a url" })).toMatch(/^CORS_ORIGINS must be/);
    expect(configError({ PUBLIC_URL: "localhost:3000" })).toMatch(/^PUBLIC_URL must be an http/);
    expect(configError({ CLERK_PUBLISHABLE_KEY: "pk_test_garbage", CLERK_SECRET_KEY: "sk_test_abc" })).toMatch(/^CLERK_PUBLISHABLE_KEY must be a Clerk publishable key/);
    expect(configError({ ...clerkKeys, CLERK_JWT_KEY: "not a pem" })).toMatch(/^CLERK_JWT_KEY must be a PEM public key/);
  });

  it("production with local accounts needs BETTER_AUTH_SECRET; with Clerk it does not", () => {
    expect(configError({ NODE_ENV: "production" })).toMatch(/^BETTER_AUTH_SECRET is required when NODE_ENV=production/);
    expect(loadConfig({ NODE_ENV: "production", ...clerkKeys }).modes.auth).toBe("clerk");
  });

  it("Clerk: both keys switch it on; CLERK_JWT_KEY accepts \\n escapes; parties are origins", () => {
    const config = loadConfig({
      ...clerkKeys,
      CLERK_JWT_KEY: PEM.replace(/\n/g, "\\n"),
      CLERK_AUTHORIZED_PARTIES: "https://app.example.com/, http://localhost:5173",
    });
    expect(config.clerk).toEqual({
      publishableKey: clerkKeys.CLERK_PUBLISHABLE_KEY,
      secretKey: "sk_test_abc",
      jwtKey: PEM,
      apiUrl: "https://api.clerk.com",
      authorizedParties: ["https://app.example.com", "http://localhost:5173"],
      frontendApiHost: "example.clerk.accounts.dev",
    });
  });

  it("voice is Vapi exactly when VAPI_PRIVATE_KEY is set", () => {
    expect(loadConfig({ VAPI_PUBLIC_KEY: "pub" }).modes.voice).toBe("sandbox");
    expect(loadConfig({ VAPI_PRIVATE_KEY: "priv" }).modes.voice).toBe("vapi");
  });

  it("rate limits are counted in Redis exactly when REDIS_URL is set (empty: in-process)", () => {
    expect(loadConfig({ REDIS_URL: "" })).toMatchObject({ redisUrl: null, modes: { rateLimit: "memory" } });
    expect(loadConfig({ REDIS_URL: "redis://127.0.0.1:6379" })).toMatchObject({ redisUrl: "redis://127.0.0.1:6379", modes: { rateLimit: "redis" } });
    for (const url of ["rediss://:s3cret@cache.example.com:6380/2", "redis://default:s3cret@[::1]", " redis://cache "]) {
      expect(loadConfig({ REDIS_URL: url })).toMatchObject({ redisUrl: url.trim(), modes: { rateLimit: "redis" } });
    }
  });

  it("a malformed REDIS_URL says what is expected, with any password hidden", () => {
    const expected = "REDIS_URL must be a URL like redis://host:6379 or redis://:password@host:6379/0 (rediss:// for TLS)";
    expect(configError({ REDIS_URL: "127.0.0.1:6379" })).toBe(`${expected} (got "127.0.0.1:6379")`);
    expect(configError({ REDIS_URL: "localhost:6379" })).toBe(`${expected} (got "localhost:6379")`);
    expect(configError({ REDIS_URL: "http://:hunter2@cache:6379" })).toBe(`${expected} (got "http://:***@cache:6379")`);
    expect(configError({ REDIS_URL: "redis://user:hunter2@cache:6379/not-a-db" })).toBe(`${expected} (got "redis://user:***@cache:6379/not-a-db")`);
    expect(configError({ REDIS_URL: "redis://" })).toMatch(/^REDIS_URL must be a URL like/);
    expect(configError({ REDIS_URL: "redis://cache:99999" })).toMatch(/^REDIS_URL must be a URL like/);
  });

  it("describes a Redis URL for the log without its password", () => {
    expect(describeRedisUrl("redis://127.0.0.1:6379")).toBe("127.0.0.1:6379");
    expect(describeRedisUrl("redis://cache.example.com")).toBe("cache.example.com:6379");
    expect(describeRedisUrl("redis://:s3cret@cache.example.com:6380/0")).toBe("cache.example.com:6380, password hidden");
    expect(describeRedisUrl("rediss://default:s3cret@cache.example.com:6380/2")).toBe("cache.example.com:6380/2, TLS, password hidden");
  });

  it("Google Calendar: off until both GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are set; Google's own hosts by default", () => {
    expect(loadConfig({}).google).toBeNull();
    expect(loadConfig({ GOOGLE_API_URL: "http://127.0.0.1:9000" }).google).toBeNull();
    expect(loadConfig({}).modes.calendar).toBe("none");
    expect(loadConfig({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "secret" }).modes.calendar).toBe("google");
    expect(loadConfig({ GOOGLE_CLIENT_ID: "1234-abc.apps.googleusercontent.com", GOOGLE_CLIENT_SECRET: "GOCSPX-secret" }).google).toEqual({
      clientId: "1234-abc.apps.googleusercontent.com",
      clientSecret: "GOCSPX-secret",
      authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
      tokenUrl: "https://oauth2.googleapis.com/token",
      revokeUrl: "https://oauth2.googleapis.com/revoke",
      apiUrl: "https://www.googleapis.com",
    });
  });

  it("GOOGLE_OAUTH_URL moves the consent page, the token and the revoke endpoints to one host; GOOGLE_API_URL the Calendar API", () => {
    const google = loadConfig({
      GOOGLE_CLIENT_ID: "id",
      GOOGLE_CLIENT_SECRET: "secret",
      GOOGLE_OAUTH_URL: "http://127.0.0.1:4555/google/",
      GOOGLE_API_URL: "http://127.0.0.1:4556/",
    }).google;
    expect(google).toMatchObject({
      authorizeUrl: "http://127.0.0.1:4555/google/o/oauth2/v2/auth",
      tokenUrl: "http://127.0.0.1:4555/google/token",
      revokeUrl: "http://127.0.0.1:4555/google/revoke",
      apiUrl: "http://127.0.0.1:4556",
    });
  });

  it("only one Google key names the missing one; bad Google values name their variable and never echo the secret", () => {
    expect(configError({ GOOGLE_CLIENT_ID: "id" })).toMatch(/^GOOGLE_CLIENT_SECRET is missing: Google Calendar needs both/);
    expect(configError({ GOOGLE_CLIENT_SECRET: "secret" })).toMatch(/^GOOGLE_CLIENT_ID is missing: Google Calendar needs both/);
    expect(configError({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "two words" })).toBe("GOOGLE_CLIENT_SECRET must be the OAuth client's secret from Google Cloud, without spaces");
    expect(configError({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "s", GOOGLE_OAUTH_URL: "accounts.google.com" })).toMatch(/^GOOGLE_OAUTH_URL must be an http/);
    expect(configError({ GOOGLE_API_URL: "ftp://example.com" })).toMatch(/^GOOGLE_API_URL must be an http/);
  });

  it("decodes the Frontend API host from a publishable key", () => {
    expect(frontendApiHostOf(publishableKeyFor("clerk.voice.example.com"))).toBe("clerk.voice.example.com");
    expect(frontendApiHostOf("pk_live_" + Buffer.from("no-dollar-sign.example.com").toString("base64"))).toBeNull();
    expect(frontendApiHostOf("sk_test_abc")).toBeNull();
  });

  it("describes a database URL for the log without its password", () => {
    expect(describeDatabaseUrl("postgres://app:s3cret@db.example.com:6543/voice")).toBe("db.example.com:6543/voice, password hidden");
    expect(describeDatabaseUrl("postgres://postgres@127.0.0.1/postgres")).toBe("127.0.0.1:5432/postgres");
  });
});

describe(".env.example", () => {
  it("lists every variable the server reads, each with a comment above it", async () => {
    const { readFileSync } = await import("node:fs");
    const { ENV_VARIABLES } = await import("../../server/config");
    const lines = readFileSync(new URL("../../.env.example", import.meta.url), "utf8").split("\n");
    for (const name of ENV_VARIABLES) {
      const at = lines.findIndex((line) => line.startsWith(`${name}=`));
      expect(at, `${name} is missing from .env.example`).toBeGreaterThan(0);
      expect(lines[at - 1], `${name} has no comment above it`).toMatch(/^#/);
    }
  });
});
