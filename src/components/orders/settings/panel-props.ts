/** What the list page gives each admin panel. */
export interface OrdersPanelProps {
  open: boolean;
  onClose: () => void;
  /** Called after a change that the order list or its KPI cards should show (refetch). */
  onChanged?: () => void;
}
