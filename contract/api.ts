/** API paths below the base (spec §7), shared by the server's routes and the console's data provider. */
export const API_BASE = "/api";

export const apiPaths = {
  health: "/health",
  config: "/config",
  docs: "/docs",
  auth: "/auth",
  invite: (organizationId: string) => `/organization/${encodeURIComponent(organizationId)}/invite`,
} as const;
