import type { PhoneNumber } from "../../contract/phone-number";

export const NUMBER_ID = "9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f";

/** A sandbox number, the organisation's default, on no agent. */
export function makeNumber(overrides: Partial<PhoneNumber> = {}): PhoneNumber {
  return {
    id: NUMBER_ID,
    name: "Main line",
    number: "+14155550142",
    isDefault: true,
    provider: "vapi",
    agent_id: null,
    provider_number_id: null,
    is_sandbox: true,
    has_credentials: false,
    created_at: "2026-03-01T09:00:00.000Z",
    updated_at: "2026-03-01T09:00:00.000Z",
    ...overrides,
  };
}
