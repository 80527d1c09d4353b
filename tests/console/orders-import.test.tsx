import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ImportOrdersDialog } from "../../src/components/orders/settings";
import { installXhrFake } from "./campaigns-fixtures";
import { renderPanel } from "./orders-settings-fixtures";
import { findDialog, installFetchFake, json } from "./test-utils";

const CSV = [
  "reference,customer_name,customer_number,items,total,call_consent,call_consent_source",
  "#1001,Ada Lovelace,+14155550100,Blue mug x2 12.00,24.00,yes,Checkout checkbox",
  "#1002,Grace Hopper,+14155550101,,25.00,no,",
  "#1003,Bad Number,call me,,25.00,yes,",
  "",
].join("\n");

async function openImport() {
  const fetch = installFetchFake();
  installXhrFake(fetch);
  const rendered = renderPanel(ImportOrdersDialog, { fetch });
  const dialog = await findDialog("Import orders");
  return { ...rendered, dialog };
}

const upload = async (user: { upload: (input: HTMLElement, file: File) => Promise<void> }, dialog: HTMLElement, file = new File([CSV], "orders.csv", { type: "text/csv" })) =>
  user.upload(dialog.querySelector<HTMLInputElement>('input[type="file"]')!, file);

describe("importing orders from a CSV", () => {
  it("explains every column, consent included, and offers an example file", async () => {
    const { user, dialog } = await openImport();
    for (const column of ["reference", "customer_number", "customer_name", "email", "items", "total", "currency", "checkout_url", "abandoned_at", "timezone", "call_consent", "call_consent_source", "call_consent_at"]) {
      expect(within(dialog).getByText(column, { selector: "code" })).toBeInTheDocument();
    }
    expect(within(dialog).getByText(/Consent to be called: true, yes, y, 1 or on/)).toBeInTheDocument();
    expect(within(dialog).getByText(/Where and how the customer agreed/)).toBeInTheDocument();
    expect(within(dialog).getByText(/When the customer agreed, ISO 8601\./)).toBeInTheDocument();
    expect(within(dialog).getByText(/Marketing consent \(email or SMS\) is not consent to be called/)).toBeInTheDocument();

    const blobs: Blob[] = [];
    const { createObjectURL, revokeObjectURL } = URL;
    URL.createObjectURL = vi.fn((blob: Blob) => (blobs.push(blob), "blob:example"));
    URL.revokeObjectURL = vi.fn();
    try {
      await user.click(within(dialog).getByRole("button", { name: /Download an example CSV/ }));
    } finally {
      Object.assign(URL, { createObjectURL, revokeObjectURL });
    }
    const example = await blobs[0]!.text();
    expect(example.split(/\r\n/)[0]).toBe("reference,customer_name,customer_number,email,items,total,currency,checkout_url,abandoned_at,call_consent,call_consent_source,call_consent_at,timezone");
    expect(example).toContain("#1001,Ada Lovelace,+14155550100");
  });

  it("uploads the file as multipart field `file` and shows the report: new, updated, duplicates, without consent, invalid rows", async () => {
    const { user, fetch, dialog, onChanged } = await openImport();
    fetch.on("POST", "/api/order/import", () =>
      json({ data: { accepted: 2, updated: 1, duplicates: 1, no_consent: 1, invalid: [{ row: 3, reason: "customer_number: call me is not a phone number in E.164 form" }], invalid_count: 1 } }),
    );
    await upload(user, dialog);

    const report = await within(dialog).findByRole("region", { name: "Imported orders.csv" });
    const figure = (label: string) => within(within(report).getByRole("group", { name: label })).getByText(/^\d/).textContent;
    expect(figure("New orders")).toBe("2");
    expect(figure("Updated")).toBe("1");
    expect(figure("Duplicates in the file")).toBe("1");
    expect(figure("Without consent")).toBe("1");
    expect(figure("Invalid rows")).toBe("1");
    expect(within(report).getByText("1 order has no consent to be called: listed as “No consent”, never dialled automatically.")).toBeInTheDocument();
    const row = within(report).getByText("customer_number: call me is not a phone number in E.164 form").closest("tr")!;
    expect(within(row).getByText("3")).toBeInTheDocument();

    const [sent] = fetch.to("POST", "/api/order/import");
    expect(sent!.headers.get("authorization")).toBe("Bearer token-1");
    expect(((sent!.body as FormData).get("file") as File).name).toBe("orders.csv");
    expect(onChanged).toHaveBeenCalledTimes(1);

    await user.click(within(dialog).getByRole("button", { name: "Import another file" }));
    expect(within(dialog).getByText("Drop a CSV file here, or click to choose one")).toBeInTheDocument();
  });

  it("shows the server's reason when the file is refused, and that nothing was imported", async () => {
    const { user, fetch, dialog, onChanged } = await openImport();
    fetch.on("POST", "/api/order/import", () => json({ detail: "The file has no customer_number column (or number, phone, phone_number, mobile).", code: "validation_error" }, 400));
    await upload(user, dialog);
    const alert = (await within(dialog).findByText("The orders could not be imported")).closest<HTMLElement>('[role="alert"]')!;
    expect(within(alert).getByText("The orders could not be imported")).toBeInTheDocument();
    expect(within(alert).getByText(/The file has no customer_number column/)).toBeInTheDocument();
    expect(within(alert).getByText("Nothing was imported. Correct the file and upload it again.")).toBeInTheDocument();
    expect(onChanged).not.toHaveBeenCalled();
    expect(screen.queryByRole("region", { name: /Imported/ })).toBeNull();
  });
});
