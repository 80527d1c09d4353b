import { createContext, useCallback, useContext } from "react";
import { useLocation, useNavigate } from "react-router";
import { useMediaQuery } from "../../lib/media-query";

export interface ShellState {
  /** The sidebar starts expanded (spec §2/§4), collapsed on a narrow screen. */
  expanded: boolean;
  setExpanded: (expanded: boolean) => void;
  /** Below antd's `md` breakpoint (a phone): the expanded sidebar lies over the screen. */
  narrow: boolean;
}

export const ShellContext = createContext<ShellState>({ expanded: true, setExpanded: () => undefined, narrow: false });

/** antd's `md` breakpoint (its screenMD token): narrower than this is a phone. */
export const SCREEN_MD = 768;
const NARROW_QUERY = `(max-width: ${SCREEN_MD - 0.02}px)`;

/**
 * Whether the window is below antd's `md` breakpoint, read at once (antd's Grid.useBreakpoint only
 * knows after its first effect, which would draw the expanded sidebar first) and kept current.
 */
export function useNarrowScreen(): boolean {
  return useMediaQuery(NARROW_QUERY);
}

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
