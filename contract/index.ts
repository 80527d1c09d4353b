export * from "./api";
export * from "./config";
export * from "./errors";
export * from "./organization";
export * from "./permissions";
export * from "./roles";
export * from "./paging";
export * from "./call-list";
