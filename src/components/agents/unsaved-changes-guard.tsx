import { App } from "antd";
import { useCallback, useContext, useEffect } from "react";
import {
  UNSAFE_DataRouterContext,
  UNSAFE_NavigationContext,
  useBlocker,
  type BlockerFunction,
  type Navigator,
} from "react-router";
import { strings } from "../../config/strings";

/** Put `{ [SKIP_UNSAVED_GUARD]: true }` in a navigation's state to leave without the question (after a delete). */
export const SKIP_UNSAVED_GUARD = "skipUnsavedGuard";

function skipsGuard(state: unknown): boolean {
  return typeof state === "object" && state !== null && (state as Record<string, unknown>)[SKIP_UNSAVED_GUARD] === true;
}

/** "Leave without saving?" as an antd confirm; resolves true when the person chooses to leave. */
function useLeaveConfirm() {
  const { modal } = App.useApp();
  return useCallback(
    () =>
      new Promise<boolean>((resolve) => {
        modal.confirm({
          title: strings.agents.leave.title,
          content: strings.agents.leave.body,
          okText: strings.agents.leave.leave,
          okButtonProps: { danger: true },
          cancelText: strings.agents.leave.stay,
          onOk: () => resolve(true),
          onCancel: () => resolve(false),
        });
      }),
    [modal],
  );
}

/** Reloading or closing the tab: the browser asks with its own words. */
function useBeforeUnload(when: boolean) {
  useEffect(() => {
    if (!when) return;
    const ask = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older Chromium shows the prompt only when returnValue is set.
      event.returnValue = "";
    };
    window.addEventListener("beforeunload", ask);
    return () => window.removeEventListener("beforeunload", ask);
  }, [when]);
}

/** Inside a data router (createBrowserRouter): react-router's useBlocker, which also catches Back. */
function BlockerGuard({ when }: { when: boolean }) {
  const confirm = useLeaveConfirm();
  const shouldBlock = useCallback<BlockerFunction>(
    ({ currentLocation, nextLocation }) =>
      when &&
      !skipsGuard(nextLocation.state) &&
      (currentLocation.pathname !== nextLocation.pathname || currentLocation.search !== nextLocation.search),
    [when],
  );
  const blocker = useBlocker(shouldBlock);
  useEffect(() => {
    if (blocker.state !== "blocked") return;
    void confirm().then((leave) => (leave ? blocker.proceed() : blocker.reset()));
  }, [blocker, confirm]);
  return null;
}

type HistoryNavigator = Navigator & { push: Navigator["push"]; replace: Navigator["replace"]; go: Navigator["go"] };

/**
 * Under <BrowserRouter>/<MemoryRouter> useBlocker does not exist (it needs a data router), so in-app
 * navigations (links, navigate(), Refine's go) are held at the router's navigator while there are
 * unsaved changes: the same workaround @refinedev/react-router's UnsavedChangesNotifier uses, with our
 * own dialog and `replace` covered too. The browser's Back button is not held here.
 */
function NavigatorGuard({ when }: { when: boolean }) {
  const { navigator } = useContext(UNSAFE_NavigationContext);
  const confirm = useLeaveConfirm();

  useEffect(() => {
    if (!when) return;
    const history = navigator as HistoryNavigator;
    const { push, replace, go } = history;
    let asking = false;
    const held =
      <A extends unknown[]>(original: (...args: A) => void, stateOf: (args: A) => unknown) =>
      (...args: A) => {
        if (skipsGuard(stateOf(args))) return original.apply(history, args);
        if (asking) return;
        asking = true;
        void confirm().then((leave) => {
          asking = false;
          if (leave) original.apply(history, args);
        });
      };
    history.push = held(push, (args) => args[1]);
    history.replace = held(replace, (args) => args[1]);
    history.go = held(go, () => undefined);
    return () => {
      history.push = push;
      history.replace = replace;
      history.go = go;
    };
  }, [navigator, when, confirm]);
  return null;
}

/** Asks before leaving the page while `when` is true (unsaved changes): in the app and on reload/close. */
export function UnsavedChangesGuard({ when }: { when: boolean }) {
  useBeforeUnload(when);
  const dataRouter = useContext(UNSAFE_DataRouterContext);
  return dataRouter ? <BlockerGuard when={when} /> : <NavigatorGuard when={when} />;
}
