import { isIP } from "node:net";
import { z } from "zod";
import type { Modes } from "../contract";
import { DEFAULT_FILE_MAX_BYTES } from "../contract/file";
import { PLAN_IDS, type PlanId } from "../contract/plans";
import { ENCRYPTION_KEY_FORMAT, parseEncryptionKey } from "./crypto/keys";

/** A bad or missing environment variable; the message names the variable and the problem. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface ClerkConfig {
  publishableKey: string;
  secretKey: string;
  /** PEM public key for networkless token verification; null = fetch Clerk's JWKS with the secret key. */
  jwtKey: string | null;
  apiUrl: string;
  /** Origins accepted in the token's `azp` claim; empty = not checked. */
  authorizedParties: string[];
  /** The Frontend API host decoded from the publishable key (for the CSP). */
  frontendApiHost: string;
}

export interface AppConfig {
  port: number;
  /** HOST: the interface to listen on (default 127.0.0.1, this machine only). */
  host: string;
  /**
   * TRUST_PROXY: which proxies' X-Forwarded-For is believed for the client address (request.ip, and so
   * the per-IP limits): false (default: the header is ignored), true (every hop), or the proxies' addresses.
   */
  trustProxy: TrustProxy;
  nodeEnv: string;
  isProduction: boolean;
  logLevel: LogLevel;
  /**
   * The one origin browsers use (PUBLIC_URL, or defaultPublicUrl's): every address the server builds for a browser
   * (checkout returns, Google's redirect URI, invitation links, store webhooks) is on it, GET /api/config tells the
   * console, and a page opened on another loopback name of this server is sent there (server/plugins/public-origin.ts).
   */
  publicUrl: string;
  /** Whether PUBLIC_URL was set (false: publicUrl is defaultPublicUrl's guess, which start-up warns about beyond loopback). */
  publicUrlFromEnv: boolean;
  dataDir: string;
  databaseUrl: string | null;
  /** REDIS_URL: where rate limits are counted, shared by every API process; null = in-process (one process). */
  redisUrl: string | null;
  corsOrigins: string[];
  seedDemo: boolean;
  demoEmail: string;
  demoPassword: string;
  betterAuthSecret: string | null;
  /** SESSION_CACHE_SECONDS: how long a verified local session is remembered in-process (0: never). */
  sessionCacheSeconds: number;
  /** CREDENTIALS_ENCRYPTION_KEY (32 bytes); null: derived from the sign-in secret (server/crypto/keys.ts). */
  credentialsEncryptionKey: Buffer | null;
  clerk: ClerkConfig | null;
  vapi: { privateKey: string | null; publicKey: string | null; apiUrl: string };
  /** Largest knowledge-base file an upload may carry (FILE_MAX_BYTES, default 10 MB). */
  fileMaxBytes: number;
  consoleDir: string;
  rateLimitPerMinute: number;
  /** PUBLIC_PROFILE_PER_IP_PER_MINUTE: GET /agent/{id}/public, sized for a popular public page (default 600). */
  publicProfilePerIpPerMinute: number;
  modes: Modes;
  /** Webhook verification (server/webhooks/secret.ts says what happens when the secret is unset). */
  webhooks: { secret: string | null; vapiCredentialId: string | null };
  calls: CallsConfig;
  campaigns: CampaignsConfig;
  /** Google Calendar (issue 14): GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET switch it on; null = not configured. */
  google: GoogleConfig | null;
  billing: BillingConfig;
}

/** Billing, payments and plans (issue 15). */
export interface BillingConfig {
  /** DEFAULT_PLAN (default free): the plan a new organisation starts on; enterprise has no limits. */
  defaultPlan: PlanId;
  /** STRIPE_SECRET_KEY with STRIPE_WEBHOOK_SECRET switches payments to Stripe; null = the embedded sandbox. */
  stripe: StripeConfig | null;
  /** BILLING_SWEEP_SECONDS (default 60): how often pending top-ups are reconciled and the retention and grace sweeps run (each claimed once across processes). */
  sweepSeconds: number;
}

export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** STRIPE_API_URL (default https://api.stripe.com): tests and local stand-ins point it elsewhere. */
  apiUrl: string;
  /** STRIPE_PRICE_STARTER / STRIPE_PRICE_PRO; null = Checkout gets the plan's price inline (price_data, monthly). */
  prices: { starter: string | null; pro: string | null };
}

/**
 * Google Calendar over OAuth 2 (server/calendar/google/). GOOGLE_OAUTH_URL moves the whole OAuth side
 * (consent page, token, revoke) to one host, as a local stand-in serves them; unset, they are Google's
 * two hosts. GOOGLE_API_URL moves the Calendar API (freeBusy, events).
 */
export interface GoogleConfig {
  clientId: string;
  clientSecret: string;
  /** The consent page the browser is sent to: accounts.google.com/o/oauth2/v2/auth, or GOOGLE_OAUTH_URL + /o/oauth2/v2/auth. */
  authorizeUrl: string;
  /** Code exchange and refresh: oauth2.googleapis.com/token, or GOOGLE_OAUTH_URL + /token. */
  tokenUrl: string;
  /** Disconnecting revokes here: oauth2.googleapis.com/revoke, or GOOGLE_OAUTH_URL + /revoke. */
  revokeUrl: string;
  /** GOOGLE_API_URL (default https://www.googleapis.com): /calendar/v3/… */
  apiUrl: string;
}

/** Google's own OAuth hosts, used while GOOGLE_OAUTH_URL is unset. */
export const GOOGLE_DEFAULT_HOSTS = { consent: "https://accounts.google.com", oauth: "https://oauth2.googleapis.com", api: "https://www.googleapis.com" } as const;
/** Where the consent page lives below its host (Google's, or GOOGLE_OAUTH_URL's). */
export const GOOGLE_AUTHORIZE_PATH = "/o/oauth2/v2/auth";

/** Campaigns' dialler (server/campaigns/dialler.ts). */
export interface CampaignsConfig {
  /** DIALLER_ENABLED (default on): this process runs the campaign dialler; every process may (they share the work through row claims). */
  diallerEnabled: boolean;
  /** DIALLER_INTERVAL_MS (default 1000): how often an idle dialler looks for work (it also wakes at once when a call ends in this process). */
  diallerIntervalMs: number;
  /** DIALLER_LEASE_SECONDS (default 120): how long a claimed contact may go without news of its call before the reaper asks the provider. */
  leaseSeconds: number;
  /** ORG_CONCURRENT_CALLS (default 10): calls an organisation may have in progress at once from campaigns (the plan's limit once plans exist). */
  orgConcurrentCalls: number;
}

/** Calls, the sandbox's simulation, the wallet and the limits on POST /call/public. */
export interface CallsConfig {
  /** SANDBOX_CALL_SECONDS: how long a simulated call takes from queued to ended. */
  sandboxCallSeconds: number;
  /** STARTING_CREDIT_USD: what a new organisation's wallet starts with. */
  startingCreditUsd: number;
  /** MIN_BALANCE_USD: calls are refused (403) below this balance. */
  minBalanceUsd: number;
  /** CALL_HOLD_USD: what each call that has not ended yet holds of the balance while others are placed. */
  callHoldUsd: number;
  /** PUBLIC_CALL_PER_IP_PER_MINUTE, PUBLIC_CALL_PER_NUMBER_PER_HOUR, PUBLIC_CALL_PER_AGENT_PER_DAY */
  publicPerIpPerMinute: number;
  publicPerNumberPerHour: number;
  publicPerAgentPerDay: number;
}

/** Fastify's `trustProxy`: false, true (every hop), or the trusted proxies' addresses/CIDR ranges (proxy-addr). */
export type TrustProxy = boolean | string[];

/** The password README.md and .env.example publish for the demo account (DEMO_PASSWORD's default). */
export const PUBLISHED_DEMO_PASSWORD = "demo-password";

/** True when HOST is this machine only (127.0.0.0/8, ::1, localhost): nobody else can connect. */
export function isLoopbackHost(host: string): boolean {
  const value = host.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (value === "localhost" || value === "::1" || value === "0:0:0:0:0:0:0:1") return true;
  const v4 = value.startsWith("::ffff:") ? value.slice("::ffff:".length) : value;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** HOST values that listen on every interface. */
export function isWildcardHost(host: string): boolean {
  const value = host.trim().replace(/^\[(.*)\]$/, "$1");
  return value === "0.0.0.0" || value === "::" || value === "0:0:0:0:0:0:0:0";
}

/**
 * PUBLIC_URL when it is not set: http://localhost:PORT on a loopback bind (README's address), and on every interface
 * too (no one address to name: start-up asks for PUBLIC_URL); the address itself when HOST names one (a LAN address).
 */
export function defaultPublicUrl(host: string, port: number): string {
  if (isLoopbackHost(host) || isWildcardHost(host)) return `http://localhost:${port}`;
  const name = host.trim().replace(/^\[(.*)\]$/, "$1");
  return `http://${name.includes(":") ? `[${name}]` : name}:${port}`;
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Every variable the server reads (README and .env.example list the same). */
export const ENV_VARIABLES = [
  "PORT",
  "HOST",
  "TRUST_PROXY",
  "NODE_ENV",
  "LOG_LEVEL",
  "PUBLIC_URL",
  "DATA_DIR",
  "DATABASE_URL",
  "CORS_ORIGINS",
  "RATE_LIMIT_PER_MINUTE",
  "REDIS_URL",
  "SEED_DEMO",
  "DEMO_EMAIL",
  "DEMO_PASSWORD",
  "BETTER_AUTH_SECRET",
  "SESSION_CACHE_SECONDS",
  "CREDENTIALS_ENCRYPTION_KEY",
  "CLERK_PUBLISHABLE_KEY",
  "CLERK_SECRET_KEY",
  "CLERK_JWT_KEY",
  "CLERK_API_URL",
  "CLERK_AUTHORIZED_PARTIES",
  "VAPI_PRIVATE_KEY",
  "VAPI_PUBLIC_KEY",
  "VAPI_API_URL",
  "FILE_MAX_BYTES",
  "CONSOLE_DIR",
  "VAPI_WEBHOOK_SECRET",
  "VAPI_WEBHOOK_CREDENTIAL_ID",
  "SANDBOX_CALL_SECONDS",
  "STARTING_CREDIT_USD",
  "MIN_BALANCE_USD",
  "CALL_HOLD_USD",
  "PUBLIC_CALL_PER_IP_PER_MINUTE",
  "PUBLIC_CALL_PER_NUMBER_PER_HOUR",
  "PUBLIC_CALL_PER_AGENT_PER_DAY",
  "PUBLIC_PROFILE_PER_IP_PER_MINUTE",
  "DIALLER_ENABLED",
  "DIALLER_INTERVAL_MS",
  "DIALLER_LEASE_SECONDS",
  "ORG_CONCURRENT_CALLS",
  "GOOGLE_CLIENT_ID",
  "GOOGLE_CLIENT_SECRET",
  "GOOGLE_OAUTH_URL",
  "GOOGLE_API_URL",
  "DEFAULT_PLAN",
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "STRIPE_API_URL",
  "STRIPE_PRICE_STARTER",
  "STRIPE_PRICE_PRO",
  "BILLING_SWEEP_SECONDS",
] as const;
type EnvName = (typeof ENV_VARIABLES)[number];
export type Env = Partial<Record<EnvName, string | undefined>> & Record<string, string | undefined>;

/** Variables whose value must never be echoed back in an error. */
const SECRET = new Set<EnvName>(["VAPI_WEBHOOK_SECRET", "BETTER_AUTH_SECRET", "CREDENTIALS_ENCRYPTION_KEY", "CLERK_SECRET_KEY", "VAPI_PRIVATE_KEY", "DEMO_PASSWORD", "CLERK_JWT_KEY", "GOOGLE_CLIENT_SECRET", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET"]);

const httpUrl = (what: string) =>
  z.string().refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  }, `must be an http:// or https:// URL${what}`);

const origin = httpUrl(" origin").transform((value) => new URL(value).origin);

const commaList = <T extends z.ZodType<string, string>>(item: T, label: string) =>
  z
    .string()
    .transform((value) => value.split(",").map((part) => part.trim()).filter(Boolean))
    .pipe(z.array(item, { error: `must be a comma-separated list of ${label}` }));

const bool = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .pipe(z.enum(["true", "false", "1", "0", "yes", "no", "on", "off"], { error: "must be true or false" }))
  .transform((value) => ["true", "1", "yes", "on"].includes(value));

const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\s*\d+\s*$/, `must be an integer from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().min(min, `must be an integer from ${min} to ${max}`).max(max, `must be an integer from ${min} to ${max}`));

/** A decimal number such as 0.5 or 10 (no sign, no exponent). */
const decimal = (min: number, max: number) =>
  z
    .string()
    .regex(/^\s*\d+(\.\d+)?\s*$/, `must be a number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().min(min, `must be a number from ${min} to ${max}`).max(max, `must be a number from ${min} to ${max}`));

const pem = z
  .string()
  .transform((value) => value.replace(/\\n/g, "\n").trim())
  .refine(
    (value) => value.startsWith("-----BEGIN PUBLIC KEY-----") && value.endsWith("-----END PUBLIC KEY-----"),
    "must be a PEM public key (-----BEGIN PUBLIC KEY----- … -----END PUBLIC KEY-----; \\n escapes are accepted)",
  );

/** One parser per variable: each reads the raw string (unset and empty are the same: not given). */
const parsers = {
  PORT: integer(1, 65535),
  HOST: z.string().trim().min(1),
  // false, true, or a comma-separated list of the proxies' addresses or CIDR ranges (what proxy-addr reads).
  // No hop count: Fastify 5 refuses to trust by hop count alone (it cannot tell a proxy from a client).
  TRUST_PROXY: z
    .string()
    .trim()
    .transform((value, ctx): TrustProxy => {
      const lower = value.toLowerCase();
      if (["false", "0", "no", "off"].includes(lower)) return false;
      if (["true", "yes", "on"].includes(lower)) return true;
      const entries = value.split(",").map((part) => part.trim()).filter(Boolean);
      const named = new Set(["loopback", "linklocal", "uniquelocal"]);
      const valid = (entry: string) => {
        if (named.has(entry.toLowerCase())) return true;
        const [address = "", bits, ...rest] = entry.split("/");
        if (rest.length > 0 || isIP(address) === 0) return false;
        return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (isIP(address) === 4 ? 32 : 128));
      };
      if (entries.length > 0 && entries.every(valid)) return entries;
      ctx.addIssue({
        code: "custom",
        message: "must be false, true, or a comma-separated list of the proxies' addresses or CIDR ranges (e.g. 10.0.0.5 or 10.0.0.0/8, loopback)",
      });
      return z.NEVER;
    }),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` }),
  PUBLIC_URL: httpUrl("").transform((value) => value.replace(/\/+$/, "")),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")
    .refine((value) => {
      try {
        return Boolean(new URL(value).hostname);
      } catch {
        return false;
      }
    }, "must be a URL like postgres://user:password@host:5432/database"),
  CORS_ORIGINS: commaList(origin, "http(s) origins"),
  RATE_LIMIT_PER_MINUTE: integer(1, 1_000_000),
  // What ioredis reads from a URL: redis:// or rediss:// (TLS), a host, optionally a port and a database number.
  REDIS_URL: z
    .string()
    .trim()
    .refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === "redis:" || url.protocol === "rediss:") && Boolean(url.hostname) && /^\/?(\d+)?$/.test(url.pathname);
      } catch {
        return false;
      }
    }, "must be a URL like redis://host:6379 or redis://:password@host:6379/0 (rediss:// for TLS)"),
  SEED_DEMO: bool,
  DEMO_EMAIL: z.email("must be an email address"),
  DEMO_PASSWORD: z.string().min(8, "must be at least 8 characters"),
  SESSION_CACHE_SECONDS: decimal(0, 60),
  BETTER_AUTH_SECRET: z.string().min(32, "must be at least 32 characters (make one with: openssl rand -base64 32)"),
  // 32 bytes, hex or base64 (server/crypto/keys.ts).
  CREDENTIALS_ENCRYPTION_KEY: z.string().transform((value, ctx) => {
    const key = parseEncryptionKey(value);
    if (!key) ctx.addIssue({ code: "custom", message: ENCRYPTION_KEY_FORMAT });
    return key ?? z.NEVER;
  }),
  CLERK_PUBLISHABLE_KEY: z
    .string()
    .refine((value) => frontendApiHostOf(value) !== null, "must be a Clerk publishable key (pk_test_… or pk_live_…)"),
  CLERK_SECRET_KEY: z.string().regex(/^sk_(test|live)_/, "must be a Clerk secret key (sk_test_… or sk_live_…)"),
  CLERK_JWT_KEY: pem,
  CLERK_API_URL: httpUrl("").transform((value) => value.replace(/\/+$/, "")),
  CLERK_AUTHORIZED_PARTIES: commaList(origin, "http(s) origins"),
  VAPI_API_URL: httpUrl("").transform((value) => value.replace(/\/+$/, "")),
  // Uploads are held in memory while they are checked: 1 byte to 100 MB.
  FILE_MAX_BYTES: integer(1, 100 * 1024 * 1024),
  VAPI_WEBHOOK_SECRET: z.string().trim().min(16, "must be at least 16 characters (make one with: openssl rand -hex 32)"),
  VAPI_WEBHOOK_CREDENTIAL_ID: z.string().trim().min(1),
  SANDBOX_CALL_SECONDS: decimal(0, 600),
  STARTING_CREDIT_USD: decimal(0, 1_000_000),
  MIN_BALANCE_USD: decimal(0, 1_000_000),
  CALL_HOLD_USD: decimal(0, 1_000_000),
  PUBLIC_CALL_PER_IP_PER_MINUTE: integer(1, 1_000_000),
  PUBLIC_CALL_PER_NUMBER_PER_HOUR: integer(1, 1_000_000),
  PUBLIC_CALL_PER_AGENT_PER_DAY: integer(1, 1_000_000),
  PUBLIC_PROFILE_PER_IP_PER_MINUTE: integer(1, 1_000_000),
  DIALLER_ENABLED: bool,
  DIALLER_INTERVAL_MS: integer(10, 60_000),
  DIALLER_LEASE_SECONDS: integer(5, 24 * 60 * 60),
  ORG_CONCURRENT_CALLS: integer(1, 10_000),
  GOOGLE_CLIENT_ID: z.string().trim().regex(/^\S+$/, "must be the OAuth client's id from Google Cloud (e.g. 1234-abc.apps.googleusercontent.com), without spaces"),
  GOOGLE_CLIENT_SECRET: z.string().trim().regex(/^\S+$/, "must be the OAuth client's secret from Google Cloud, without spaces"),
  GOOGLE_OAUTH_URL: httpUrl("").transform((value) => value.replace(/\/+$/, "")),
  GOOGLE_API_URL: httpUrl("").transform((value) => value.replace(/\/+$/, "")),
  DEFAULT_PLAN: z.enum(PLAN_IDS, { error: `must be one of ${PLAN_IDS.join(", ")}` }),
  STRIPE_SECRET_KEY: z.string().trim().regex(/^(sk|rk)_(test|live)_\S+$/, "must be a Stripe secret key (sk_test_… or sk_live_…, or a restricted rk_… key)"),
  STRIPE_WEBHOOK_SECRET: z.string().trim().regex(/^whsec_\S+$/, "must be the webhook endpoint's signing secret (whsec_…)"),
  STRIPE_API_URL: httpUrl("").transform((value) => value.replace(/\/+$/, "")),
  STRIPE_PRICE_STARTER: z.string().trim().regex(/^price_\S+$/, "must be a Stripe price id (price_…)"),
  STRIPE_PRICE_PRO: z.string().trim().regex(/^price_\S+$/, "must be a Stripe price id (price_…)"),
  BILLING_SWEEP_SECONDS: integer(1, 24 * 60 * 60),
} satisfies Partial<Record<EnvName, z.ZodType>>;

function shown(name: EnvName, raw: string): string {
  if (SECRET.has(name)) return "";
  // A database or Redis URL may carry a password: show it with the password hidden.
  const value = name === "DATABASE_URL" || name === "REDIS_URL" ? raw.replace(/\/\/([^:/@]*):[^@]*@/, "//$1:***@") : raw;
  return ` (got ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)})`;
}

/**
 * The Clerk Frontend API host inside a publishable key: `pk_test_` or `pk_live_` + base64("host$").
 * Returns null when the key is not shaped that way.
 */
export function frontendApiHostOf(publishableKey: string): string | null {
  const match = /^pk_(test|live)_([A-Za-z0-9+/=_-]+)$/.exec(publishableKey.trim());
  if (!match?.[2]) return null;
  const decoded = Buffer.from(match[2], "base64").toString("utf8");
  if (!decoded.endsWith("$")) return null;
  const host = decoded.slice(0, -1);
  return /^[a-z0-9.-]+(:\d+)?$/i.test(host) && host.includes(".") ? host : null;
}

/** Reads and checks the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): AppConfig {
  const raw = (name: EnvName): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === "" ? undefined : value;
  };
  function read<K extends keyof typeof parsers>(name: K): z.output<(typeof parsers)[K]> | undefined {
    const value = raw(name);
    if (value === undefined) return undefined;
    const result = parsers[name].safeParse(value);
    if (!result.success) {
      const message = result.error.issues[0]?.message ?? "is not valid";
      throw new ConfigError(`${name} ${message}${shown(name, value)}`);
    }
    return result.data as z.output<(typeof parsers)[K]>;
  }

  const nodeEnv = raw("NODE_ENV")?.trim() ?? "development";
  const isProduction = nodeEnv === "production";
  const port = read("PORT") ?? 3000;

  const publishableKey = read("CLERK_PUBLISHABLE_KEY");
  const secretKey = read("CLERK_SECRET_KEY");
  if (publishableKey && !secretKey) {
    throw new ConfigError("CLERK_SECRET_KEY is missing: Clerk needs both CLERK_PUBLISHABLE_KEY and CLERK_SECRET_KEY (or neither, for local accounts)");
  }
  if (secretKey && !publishableKey) {
    throw new ConfigError("CLERK_PUBLISHABLE_KEY is missing: Clerk needs both CLERK_PUBLISHABLE_KEY and CLERK_SECRET_KEY (or neither, for local accounts)");
  }
  const clerk: ClerkConfig | null =
    publishableKey && secretKey
      ? {
          publishableKey,
          secretKey,
          jwtKey: read("CLERK_JWT_KEY") ?? null,
          apiUrl: read("CLERK_API_URL") ?? "https://api.clerk.com",
          authorizedParties: read("CLERK_AUTHORIZED_PARTIES") ?? [],
          frontendApiHost: frontendApiHostOf(publishableKey) as string,
        }
      : null;

  const betterAuthSecret = read("BETTER_AUTH_SECRET") ?? null;
  if (isProduction && !clerk && !betterAuthSecret) {
    throw new ConfigError(
      "BETTER_AUTH_SECRET is required when NODE_ENV=production with local accounts (make one with: openssl rand -base64 32)",
    );
  }

  const databaseUrl = read("DATABASE_URL") ?? null;
  const redisUrl = read("REDIS_URL") ?? null;
  const vapiPrivateKey = raw("VAPI_PRIVATE_KEY")?.trim() ?? null;

  const googleClientId = read("GOOGLE_CLIENT_ID");
  const googleClientSecret = read("GOOGLE_CLIENT_SECRET");
  if (googleClientId && !googleClientSecret) {
    throw new ConfigError("GOOGLE_CLIENT_SECRET is missing: Google Calendar needs both GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET (or neither)");
  }
  if (googleClientSecret && !googleClientId) {
    throw new ConfigError("GOOGLE_CLIENT_ID is missing: Google Calendar needs both GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET (or neither)");
  }
  const googleOauthUrl = read("GOOGLE_OAUTH_URL");
  const googleApiUrl = read("GOOGLE_API_URL");
  const google: GoogleConfig | null =
    googleClientId && googleClientSecret
      ? {
          clientId: googleClientId,
          clientSecret: googleClientSecret,
          authorizeUrl: `${googleOauthUrl ?? GOOGLE_DEFAULT_HOSTS.consent}${GOOGLE_AUTHORIZE_PATH}`,
          tokenUrl: `${googleOauthUrl ?? GOOGLE_DEFAULT_HOSTS.oauth}/token`,
          revokeUrl: `${googleOauthUrl ?? GOOGLE_DEFAULT_HOSTS.oauth}/revoke`,
          apiUrl: googleApiUrl ?? GOOGLE_DEFAULT_HOSTS.api,
        }
      : null;

  const stripeSecretKey = read("STRIPE_SECRET_KEY");
  const stripeWebhookSecret = read("STRIPE_WEBHOOK_SECRET");
  if (stripeSecretKey && !stripeWebhookSecret) {
    throw new ConfigError("STRIPE_WEBHOOK_SECRET is missing: Stripe payments need the webhook endpoint's signing secret (whsec_…) beside STRIPE_SECRET_KEY");
  }
  if (stripeWebhookSecret && !stripeSecretKey) {
    throw new ConfigError("STRIPE_SECRET_KEY is missing: STRIPE_WEBHOOK_SECRET is set but Stripe payments need the secret key too (or neither, for the sandbox)");
  }
  const stripe: StripeConfig | null =
    stripeSecretKey && stripeWebhookSecret
      ? {
          secretKey: stripeSecretKey,
          webhookSecret: stripeWebhookSecret,
          apiUrl: read("STRIPE_API_URL") ?? "https://api.stripe.com",
          prices: { starter: read("STRIPE_PRICE_STARTER") ?? null, pro: read("STRIPE_PRICE_PRO") ?? null },
        }
      : null;

  const host = read("HOST") ?? "127.0.0.1";
  const publicUrl = read("PUBLIC_URL");
  return {
    port,
    host,
    trustProxy: read("TRUST_PROXY") ?? false,
    nodeEnv,
    isProduction,
    logLevel: read("LOG_LEVEL") ?? "info",
    publicUrl: publicUrl ?? defaultPublicUrl(host, port),
    publicUrlFromEnv: publicUrl !== undefined,
    dataDir: raw("DATA_DIR") ?? "./.data",
    databaseUrl,
    redisUrl,
    corsOrigins: read("CORS_ORIGINS") ?? [],
    seedDemo: read("SEED_DEMO") ?? !isProduction,
    demoEmail: (read("DEMO_EMAIL") ?? "demo@example.com").toLowerCase(),
    demoPassword: read("DEMO_PASSWORD") ?? PUBLISHED_DEMO_PASSWORD,
    betterAuthSecret,
    sessionCacheSeconds: read("SESSION_CACHE_SECONDS") ?? 5,
    credentialsEncryptionKey: read("CREDENTIALS_ENCRYPTION_KEY") ?? null,
    clerk,
    vapi: {
      privateKey: vapiPrivateKey,
      publicKey: raw("VAPI_PUBLIC_KEY")?.trim() ?? null,
      apiUrl: read("VAPI_API_URL") ?? "https://api.vapi.ai",
    },
    fileMaxBytes: read("FILE_MAX_BYTES") ?? DEFAULT_FILE_MAX_BYTES,
    consoleDir: raw("CONSOLE_DIR") ?? "dist/console",
    rateLimitPerMinute: read("RATE_LIMIT_PER_MINUTE") ?? 600,
    publicProfilePerIpPerMinute: read("PUBLIC_PROFILE_PER_IP_PER_MINUTE") ?? 600,
    modes: {
      database: databaseUrl ? "postgres" : "pglite",
      auth: clerk ? "clerk" : "local",
      voice: vapiPrivateKey ? "vapi" : "sandbox",
      rateLimit: redisUrl ? "redis" : "memory",
      calendar: google ? "google" : "none",
      payments: stripe ? "stripe" : "sandbox",
    },
    webhooks: { secret: read("VAPI_WEBHOOK_SECRET") ?? null, vapiCredentialId: read("VAPI_WEBHOOK_CREDENTIAL_ID") ?? null },
    calls: {
      sandboxCallSeconds: read("SANDBOX_CALL_SECONDS") ?? 6,
      startingCreditUsd: read("STARTING_CREDIT_USD") ?? 10,
      minBalanceUsd: read("MIN_BALANCE_USD") ?? 0.5,
      callHoldUsd: read("CALL_HOLD_USD") ?? 1,
      publicPerIpPerMinute: read("PUBLIC_CALL_PER_IP_PER_MINUTE") ?? 5,
      publicPerNumberPerHour: read("PUBLIC_CALL_PER_NUMBER_PER_HOUR") ?? 3,
      publicPerAgentPerDay: read("PUBLIC_CALL_PER_AGENT_PER_DAY") ?? 100,
    },
    campaigns: {
      diallerEnabled: read("DIALLER_ENABLED") ?? true,
      diallerIntervalMs: read("DIALLER_INTERVAL_MS") ?? 1000,
      leaseSeconds: read("DIALLER_LEASE_SECONDS") ?? 120,
      orgConcurrentCalls: read("ORG_CONCURRENT_CALLS") ?? 10,
    },
    google,
    billing: {
      defaultPlan: read("DEFAULT_PLAN") ?? "free",
      stripe,
      sweepSeconds: read("BILLING_SWEEP_SECONDS") ?? 60,
    },
  };
}

/** A database URL fit for a log line: host, port and database, never the password. */
export function describeDatabaseUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const database = url.pathname.replace(/^\//, "") || "postgres";
  return `${url.hostname}:${url.port || "5432"}/${database}${url.password ? ", password hidden" : ""}`;
}

/** A Redis URL fit for a log line: host and port (and database, TLS), never the password. */
export function describeRedisUrl(redisUrl: string): string {
  const url = new URL(redisUrl);
  const database = url.pathname.replace(/^\//, "");
  const notes = [url.protocol === "rediss:" ? "TLS" : "", url.password ? "password hidden" : ""].filter(Boolean);
  return `${url.hostname}:${url.port || "6379"}${database && database !== "0" ? `/${database}` : ""}${notes.length ? `, ${notes.join(", ")}` : ""}`;
}
