import { createContext, useCallback, useContext } from "react";
import { useLocation, useNavigate } from "react-router";

export interface ShellState {
  /** The sidebar starts expanded (spec §2/§4). */
  expanded: boolean;
  setExpanded: (expanded: boolean) => void;
}

export const ShellContext = createContext<ShellState>({ expanded: true, setExpanded: () => undefined });

export function useShell(): ShellState {
  return useContext(ShellContext);
}

/**
 * Spec §2: after creating, leaving or selecting an organisation the console goes to /dashboard when
 * the sidebar is expanded and stays on the current path when it is collapsed.
 */
export function useOrganizationChangeDestination(): string {
  const { expanded } = useShell();
  const location = useLocation();
  return expanded ? "/dashboard" : `${location.pathname}${location.search}`;
}

export function useAfterOrganizationChange(): () => void {
  const { expanded } = useShell();
  const navigate = useNavigate();
  return useCallback(() => {
    if (expanded) navigate("/dashboard");
  }, [expanded, navigate]);
}
