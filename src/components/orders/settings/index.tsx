/**
 * The /orders screen's admin panels: follow-up settings, store integrations and the CSV import.
 * The list page (src/routes/orders/list) mounts them; each is a drawer or dialog of its own, with the
 * props OrdersPanelProps.
 */
export type { OrdersPanelProps } from "./panel-props";
export { FollowUpSettingsDrawer } from "./follow-up-drawer";
export { IntegrationsDrawer } from "./integrations-drawer";
export { ImportOrdersDialog } from "./import-orders-dialog";
