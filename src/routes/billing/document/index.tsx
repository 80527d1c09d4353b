export { default } from "../../../components/billing/billing-document";
