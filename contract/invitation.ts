// Invitations (local accounts), without zod: the console's entry chunk reads these through its strings.

/** How long an invitation stays open (local accounts; Clerk keeps its own). */
export const INVITATION_TTL_DAYS = 7;

/** The console page an invitation link opens (local accounts). */
export const invitationPath = (invitationId: string) => `/invitation/${encodeURIComponent(invitationId)}`;
