import { Button, Tooltip, type ButtonProps } from "antd";
import { billingText } from "./strings";

/**
 * A button that moves money: for a member it stays on screen, disabled, with the reason in a tooltip
 * (a disabled button gets no pointer events, so the tooltip sits on a wrapper that can take focus).
 */
export function AdminButton({ allowed, ...props }: ButtonProps & { allowed: boolean }) {
  if (allowed) return <Button {...props} />;
  return (
    <Tooltip title={billingText.adminOnly}>
      <span className="billing-disabled-wrap" tabIndex={0} aria-label={billingText.adminOnly}>
        <Button {...props} disabled aria-description={billingText.adminOnly} />
      </span>
    </Tooltip>
  );
}
