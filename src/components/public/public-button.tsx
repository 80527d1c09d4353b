import type { ButtonHTMLAttributes, ReactNode, Ref } from "react";

/**
 * The public pages' button (spec §9): when disabled, opacity 0.75 and a not-allowed cursor (public.css);
 * a spinner while busy, and it cannot be pressed then.
 */
export function PublicButton({
  variant = "primary",
  busy = false,
  disabled,
  children,
  className,
  type = "button",
  ref,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & {
  ref?: Ref<HTMLButtonElement>;
  variant?: "primary" | "default" | "danger" | "ghost";
  busy?: boolean;
  children: ReactNode;
}) {
  return (
    <button
      {...rest}
      ref={ref}
      type={type}
      className={`pub-btn pub-btn--${variant}${className ? ` ${className}` : ""}`}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
    >
      {busy && <span className="pub-spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}
