/** The store adapters by integration kind (INTEGRATION_KINDS). */
import type { IntegrationKind } from "../../../contract/order-shared";
import * as generic from "./generic";
import * as shopify from "./shopify";
import type { StoreAdapter } from "./types";
import * as woocommerce from "./woocommerce";

export const STORE_ADAPTERS: Readonly<Record<IntegrationKind, StoreAdapter>> = { shopify, woocommerce, generic };
