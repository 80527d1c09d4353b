import type { AuthProvider } from "@refinedev/core";
import { activeOrganization, activeRole, type AuthSession } from "../auth/session";

/**
 * Refine's auth provider over the current AuthSession (local or Clerk). The console's own gate
 * (components/session) reads the session directly; this provider serves Refine's hooks
 * (useGetIdentity, usePermissions, useLogout, useOnError) with the same facts.
 */
export function createAuthProvider(
  getSession: () => AuthSession,
  whenSettled: () => Promise<AuthSession>,
): AuthProvider {
  return {
    async login(params: { email?: string; password?: string }) {
      const auth = getSession().passwordAuth;
      if (!auth || !params?.email || !params.password) {
        return { success: false, error: new Error("Use the sign-in screen of the identity provider") };
      }
      try {
        await auth.signIn(params.email, params.password);
        return { success: true, redirectTo: "/dashboard" };
      } catch (error) {
        return { success: false, error: error as Error };
      }
    },

    async register(params: { name?: string; email?: string; password?: string }) {
      const auth = getSession().passwordAuth;
      if (!auth || !params?.email || !params.password) {
        return { success: false, error: new Error("Use the sign-up screen of the identity provider") };
      }
      try {
        await auth.signUp(params.name ?? "", params.email, params.password);
        return { success: true, redirectTo: "/dashboard" };
      } catch (error) {
        return { success: false, error: error as Error };
      }
    },

    async logout() {
      await getSession().signOut();
      // Spec §2: sign-out returns to '/'.
      return { success: true, redirectTo: "/" };
    },

    async check() {
      const session = await whenSettled();
      return session.status === "signedIn" ? { authenticated: true } : { authenticated: false, redirectTo: "/" };
    },

    async onError(error: { statusCode?: number }) {
      // 401 means the session is gone (expired or revoked elsewhere): sign out, back to '/'.
      if (error?.statusCode === 401) return { logout: true, redirectTo: "/", error: error as Error };
      return {};
    },

    async getIdentity() {
      const session = await whenSettled();
      if (!session.user) return null;
      return { ...session.user, organization: activeOrganization(session) };
    },

    async getPermissions() {
      return activeRole(await whenSettled());
    },
  };
}
