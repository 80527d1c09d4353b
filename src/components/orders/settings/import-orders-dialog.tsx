import { DownloadOutlined, InboxOutlined } from "@ant-design/icons";
import { Alert, Button, Modal, Progress, Table, Typography, Upload } from "antd";
import { useState } from "react";
import { formatByteLimit } from "../../../../contract";
import { ORDER_CSV_COLUMNS, ORDER_IMPORT_MAX_BYTES, ORDER_PATHS } from "../../../../contract/order-shared";
import { useAuthSession } from "../../../auth/session";
import { saveFile } from "../../../lib/csv-download";
import type { ApiError } from "../../../providers/data/fetch-wrapper";
import { sendWithProgress, type UploadProgress } from "../../../providers/data/upload";
import type { OrdersPanelProps } from "./panel-props";
import { ordersSettingsText } from "./strings";
import "./settings.css";

const text = ordersSettingsText.import;
const REQUIRED: readonly string[] = ["reference", "customer_number"];
const INVALID_SHOWN = 100;

/** POST /order/import's answer (contract/order.ts orderImportReportSchema). */
interface ImportReport {
  accepted: number;
  updated: number;
  duplicates: number;
  no_consent: number;
  invalid: Array<{ row: number; reason: string }>;
  invalid_count: number;
}

/** The example file: every column, one order with consent and one without. */
export const EXAMPLE_CSV = [
  Object.keys(ORDER_CSV_COLUMNS).join(","),
  '#1001,Ada Lovelace,+14155550100,ada@example.com,"Blue mug x2 12.00; Tote bag x1 35.90",59.90,USD,https://shop.example.com/checkout/1001,2026-12-01T09:00:00Z,yes,Checkout checkbox,2026-12-01T08:58:00Z,America/New_York',
  "#1002,Grace Hopper,+14155550101,grace@example.com,Gift card x1 25.00,25.00,USD,https://shop.example.com/checkout/1002,2026-12-01T10:30:00Z,no,,,America/Los_Angeles",
  "",
].join("\r\n");

/** The columns the import reads (contract ORDER_CSV_COLUMNS), with the other names it accepts and what each holds. */
function ColumnList() {
  return (
    <ul className="orders-import__columns">
      {(Object.entries(ORDER_CSV_COLUMNS) as Array<[string, readonly string[]]>).map(([column, names]) => {
        const others = names.filter((name) => name !== column);
        return (
          <li key={column}>
            <code>{column}</code>
            {REQUIRED.includes(column) && <strong> ({text.required})</strong>}
            {others.length > 0 && <Typography.Text type="secondary"> ({others.join(", ")})</Typography.Text>}: {text.meanings[column]}
          </li>
        );
      })}
    </ul>
  );
}

function Figure({ label, value }: { label: string; value: number }) {
  return (
    <div className="orders-import__figure" role="group" aria-label={label}>
      <span className="orders-import__figure-value">{value.toLocaleString("en-US")}</span>
      <span className="orders-import__figure-label">{label}</span>
    </div>
  );
}

function ReportView({ report, fileName }: { report: ImportReport; fileName: string }) {
  return (
    <section aria-label={text.reportTitle(fileName)}>
      <Alert type={report.invalid_count > 0 ? "warning" : "success"} showIcon message={text.reportTitle(fileName)} />
      <div className="orders-import__figures">
        <Figure label={text.report.accepted} value={report.accepted} />
        <Figure label={text.report.updated} value={report.updated} />
        <Figure label={text.report.duplicates} value={report.duplicates} />
        <Figure label={text.report.no_consent} value={report.no_consent} />
        <Figure label={text.report.invalid} value={report.invalid_count} />
      </div>
      {report.no_consent > 0 && <Typography.Paragraph type="secondary">{text.noConsentHint(report.no_consent)}</Typography.Paragraph>}
      {report.invalid.length > 0 && (
        <>
          <Typography.Title level={5}>{text.invalidTitle}</Typography.Title>
          <Typography.Paragraph type="secondary">
            {text.rowNumbering}
            {report.invalid_count > Math.min(report.invalid.length, INVALID_SHOWN) && ` ${text.invalidMore(Math.min(report.invalid.length, INVALID_SHOWN), report.invalid_count)}`}
          </Typography.Paragraph>
          <Table
            size="small"
            rowKey="row"
            pagination={false}
            scroll={{ y: 240 }}
            dataSource={report.invalid.slice(0, INVALID_SHOWN)}
            columns={[
              { title: text.invalidRow, dataIndex: "row", width: 72 },
              { title: text.invalidReason, dataIndex: "reason", render: (reason: string) => <span style={{ overflowWrap: "anywhere" }}>{reason}</span> },
            ]}
          />
        </>
      )}
    </section>
  );
}

/**
 * Imports orders from a CSV (POST /order/import, multipart field `file`): the columns explained, an
 * example to download, upload progress, then the report: new, updated, duplicates, without consent,
 * and the invalid rows with their row number and reason.
 */
export function ImportOrdersDialog({ open, onClose, onChanged }: OrdersPanelProps) {
  const { getToken } = useAuthSession();
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [outcome, setOutcome] = useState<{ report?: ImportReport; fileName: string; error?: string } | null>(null);
  const limit = formatByteLimit(ORDER_IMPORT_MAX_BYTES);

  const upload = async (file: File) => {
    setOutcome(null);
    if (file.size > ORDER_IMPORT_MAX_BYTES) {
      setOutcome({ fileName: file.name, error: text.tooLarge(limit) });
      return;
    }
    const body = new FormData();
    body.append("file", file, file.name);
    setProgress({ loaded: 0, total: file.size });
    try {
      const answer = await sendWithProgress<{ data: ImportReport }>({ path: ORDER_PATHS.import, body, token: await getToken(), onProgress: setProgress });
      setOutcome({ fileName: file.name, report: answer.data });
      onChanged?.();
    } catch (caught) {
      setOutcome({ fileName: file.name, error: (caught as ApiError | undefined)?.message ?? text.failed });
    } finally {
      setProgress(null);
    }
  };

  const close = () => {
    if (progress) return;
    setOutcome(null);
    onClose();
  };

  return (
    <Modal
      open={open}
      title={text.title}
      onCancel={close}
      width="min(720px, calc(100vw - 16px))"
      destroyOnHidden
      closable={{ "aria-label": ordersSettingsText.close }}
      footer={<Button onClick={close}>{ordersSettingsText.close}</Button>}
    >
      {outcome?.report ? (
        <>
          <ReportView report={outcome.report} fileName={outcome.fileName} />
          <Button style={{ marginTop: 12 }} onClick={() => setOutcome(null)}>
            {text.another}
          </Button>
        </>
      ) : (
        <>
          <Typography.Paragraph>{text.intro}</Typography.Paragraph>
          <Typography.Title level={5}>{text.columnsTitle}</Typography.Title>
          <ColumnList />
          <Alert type="info" showIcon message={text.consentNote} style={{ marginBottom: 12 }} />
          <Button icon={<DownloadOutlined />} onClick={() => saveFile(["\uFEFF", EXAMPLE_CSV], "orders-example.csv")} style={{ marginBottom: 12 }}>
            {text.example}
          </Button>
          {outcome?.error && <Alert type="error" showIcon role="alert" message={text.failed} description={<>{outcome.error}<div>{text.failedHint}</div></>} style={{ marginBottom: 12 }} />}
          <Upload.Dragger
            accept=".csv,text/csv"
            showUploadList={false}
            maxCount={1}
            disabled={progress !== null}
            beforeUpload={(file) => {
              void upload(file);
              return false;
            }}
          >
            <p className="ant-upload-drag-icon">
              <InboxOutlined />
            </p>
            <p className="ant-upload-text">{progress ? text.uploading : text.drop}</p>
            <p className="ant-upload-hint">{text.dropHint(limit)}</p>
          </Upload.Dragger>
          {progress && progress.total > 0 && <Progress percent={Math.round((progress.loaded / progress.total) * 100)} size="small" aria-label={text.progress} />}
        </>
      )}
    </Modal>
  );
}
