import { Component, type ErrorInfo, type ReactNode } from "react";
import { strings } from "../config/strings";
import { allowScreenRetry, ScreenLoadError } from "../lib/lazy-retry";
import { StatusMessage } from "./status-message";

const text = strings.screenError;

interface Props {
  children: ReactNode;
  /** A change (the path) clears a caught error, so moving to another screen shows it. */
  resetKey?: string;
}

/**
 * Catches what a screen throws while rendering (its code that could not load included) and shows a message
 * with "Try again" (renders it again; a screen's code is imported again: lazyRetry) and "Reload page", in the
 * area the screen had: inside the shell the sidebar stays. Plain elements: the entry chunk has no antd.
 */
export class ScreenErrorBoundary extends Component<Props, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown): { error: Error } {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error("A screen failed:", error, info.componentStack);
  }

  override componentDidUpdate(previous: Props): void {
    if (this.state.error && previous.resetKey !== this.props.resetKey) this.retry();
  }

  private retry(): void {
    allowScreenRetry();
    this.setState({ error: null });
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    const loading = error instanceof ScreenLoadError;
    return (
      <StatusMessage
        title={loading ? text.loadTitle : text.renderTitle}
        detail={loading ? text.loadDetail : text.renderDetail}
        action={
          <div className="status-message__actions">
            <button type="button" className="status-message__button status-message__button--primary" onClick={() => this.retry()}>
              {text.retry}
            </button>
            <button type="button" className="status-message__button" onClick={() => window.location.reload()}>
              {text.reload}
            </button>
          </div>
        }
      />
    );
  }
}
