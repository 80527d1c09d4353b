/**
 * GET /dashboard/'s and the organisation settings' paths and limits, without zod: the dashboard is the
 * landing page, and its chunk must not pull the validator in (contract/dashboard.ts has the schemas).
 */
export const dashboardPath = "/dashboard/";
/** The period GET /dashboard/ answers without dates: the last 30 days, today included. */
export const DASHBOARD_DEFAULT_DAYS = 30;
/** The longest period GET /dashboard/ answers. */
export const DASHBOARD_MAX_DAYS = 366;

/** GET / PATCH /organization/settings: the active organisation's settings (PATCH: admins). */
export const organizationSettingsPath = "/organization/settings";
