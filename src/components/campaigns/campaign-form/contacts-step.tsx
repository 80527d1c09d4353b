import { DownloadOutlined, InboxOutlined } from "@ant-design/icons";
import { Alert, Button, Checkbox, Flex, Form, Modal, Progress, Select, Statistic, Table, Typography, Upload } from "antd";
import { useEffect, useRef, useState, type RefObject } from "react";
import type { Campaign, ContactImportReport } from "../../../../contract/campaign";
import { CAMPAIGN_PATHS, CONTACT_IMPORT_MAX_BYTES, CONTACT_IMPORT_STATUSES, CONTACT_VARIABLES_MAX, FINAL_CAMPAIGN_STATUSES } from "../../../../contract/campaign-shared";
import { useAuthSession } from "../../../auth/session";
import { strings } from "../../../config/strings";
import { parseCsv, type ParsedCsv } from "../../../lib/csv";
import { saveFile } from "../../../lib/csv-download";
import { useToasts } from "../../../lib/toast";
import type { ApiError } from "../../../providers/data/fetch-wrapper";
import { sendWithProgress } from "../../../providers/data/upload";
import { formatCount } from "../campaign-format";
import { columnLabel, contactsOf, guessMapping, inChunks, invalidRowsCsv, mergeReports, variableColumns, type ColumnMapping } from "./contact-import";

const text = strings.campaigns.form;
const MAX_SIZE_TEXT = `${CONTACT_IMPORT_MAX_BYTES / 1024 / 1024} MB`;
const PREVIEW_ROWS = 5;

interface ReadFile {
  name: string;
  csv: ParsedCsv;
}

/**
 * Asked before the wizard leaves the Contacts step (Next, Back, a step in the stepper, Save); resolves
 * true when it may go on. A file picked and previewed but not imported is never dropped silently: the
 * member is asked "Import 120 contacts from leads.csv before going on?" and chooses Import (the upload
 * runs in the dialog with its progress; the wizard goes on when the import is clean, and stays on this
 * step with the report when it failed or left rows to check), Discard the file (goes on without it) or
 * Stay. Until then the step stays current, so the stepper never ticks Contacts with a file waiting.
 */
export type LeaveContacts = () => boolean | Promise<boolean>;

interface Outcome {
  report?: ContactImportReport;
  error?: string;
  /** Rows sent before a failure, when a file went in several requests. */
  sent?: number;
}

function ColumnSelect({ label, value, header, optional, onChange }: { label: string; value: number | null; header: string[]; optional?: boolean; onChange: (value: number | null) => void }) {
  return (
    <Form.Item label={label} required={!optional} style={{ marginBottom: 12 }}>
      <Select
        aria-label={label}
        value={value ?? (optional ? -1 : undefined)}
        placeholder={label}
        onChange={(next: number) => onChange(next < 0 ? null : next)}
        options={[...(optional ? [{ value: -1, label: text.noColumn }] : []), ...header.map((_, index) => ({ value: index, label: columnLabel(header, index) }))]}
      />
    </Form.Item>
  );
}

/** The first rows as they will be sent: number, name, time zone, then the variables under their names. */
function Preview({ file, mapping }: { file: ReadFile; mapping: ColumnMapping }) {
  const variables = variableColumns(file.csv.header, mapping);
  const columns = [
    ...(mapping.number !== null ? [{ key: "number", title: text.previewNumber, index: mapping.number }] : []),
    ...(mapping.name !== null ? [{ key: "name", title: text.previewName, index: mapping.name }] : []),
    ...(mapping.timezone !== null ? [{ key: "timezone", title: text.previewTimezone, index: mapping.timezone }] : []),
    ...variables.map((index) => ({ key: `v${index}`, title: columnLabel(file.csv.header, index), index })),
  ];
  const rows = file.csv.rows.slice(0, PREVIEW_ROWS).map((row, line) => ({ key: line, row }));
  return (
    <Table
      className="campaign-import__preview"
      size="small"
      pagination={false}
      scroll={{ x: "max-content" }}
      caption={text.preview(rows.length, formatCount(file.csv.rows.length))}
      dataSource={rows}
      columns={columns.map((column) => ({ key: column.key, title: column.title, render: (_: unknown, record: { row: string[] }) => record.row[column.index] ?? "" }))}
    />
  );
}

/** What the import did: counts, the variables, and the invalid rows (downloadable to fix). */
function ImportReport({
  outcome,
  file,
  mapping,
  campaign,
  stayed,
  onAgain,
}: {
  outcome: Outcome;
  file: ReadFile;
  mapping: ColumnMapping;
  campaign: Campaign;
  /** Imported on the way out of the step, and kept here because the report has rows to check. */
  stayed: boolean;
  onAgain: () => void;
}) {
  const report = outcome.report;
  const download = () => report && saveFile([invalidRowsCsv(report, file.csv)], `invalid-rows-${file.name.replace(/\.csv$/i, "")}.csv`);
  return (
    <section aria-label={text.report}>
      {stayed && !outcome.error && <Alert type="info" showIcon style={{ marginBottom: 16 }} message={text.importStayed} />}
      {outcome.error && (
        <Alert
          type="error"
          showIcon
          role="alert"
          style={{ marginBottom: 16 }}
          message={text.importFailed}
          description={
            <>
              {outcome.error}
              {outcome.sent ? <div>{text.importPartly(formatCount(outcome.sent), formatCount(file.csv.rows.length))}</div> : null}
            </>
          }
        />
      )}
      {report && (
        <>
          <Typography.Title level={5}>{text.report}</Typography.Title>
          <Flex wrap gap={24} style={{ marginBottom: 12 }}>
            <Statistic title={text.reportAccepted} value={report.accepted} />
            <Statistic title={text.reportDuplicates} value={report.duplicates} />
            <Statistic title={text.reportDnc} value={report.dnc} />
            <Statistic title={text.reportInvalid} value={report.invalid_count} />
            <Statistic title={text.reportNeedsTimezone} value={report.needs_timezone} />
          </Flex>
          <Typography.Paragraph>
            {text.reportTotal(formatCount(report.total_contacts))} {report.variables.length > 0 && text.reportVariables(report.variables.join(", "))}
          </Typography.Paragraph>
          {report.needs_timezone > 0 && !campaign.schedule.fallback_timezone && (
            <Alert type="warning" showIcon style={{ marginBottom: 12 }} message={text.reportNeedsTimezoneHint(formatCount(report.needs_timezone))} />
          )}
          {report.invalid.length > 0 && (
            <>
              <Flex wrap gap={8} align="center" justify="space-between">
                <Typography.Title level={5} style={{ margin: 0 }}>
                  {text.invalidRows}
                </Typography.Title>
                <Button icon={<DownloadOutlined />} onClick={download}>
                  {text.downloadInvalid}
                </Button>
              </Flex>
              {report.invalid_count > report.invalid.length && <Typography.Paragraph type="secondary">{text.invalidMore(report.invalid.length, formatCount(report.invalid_count))}</Typography.Paragraph>}
              <Table
                size="small"
                rowKey="row"
                scroll={{ x: "max-content" }}
                pagination={{ pageSize: 10, hideOnSinglePage: true }}
                dataSource={report.invalid}
                columns={[
                  { key: "row", title: text.invalidRow, dataIndex: "row" },
                  { key: "number", title: text.previewNumber, render: (_: unknown, row: { number?: string; row: number }) => row.number ?? (mapping.number === null ? "" : (file.csv.rows[row.row - 1]?.[mapping.number] ?? "")) },
                  { key: "reason", title: text.invalidReason, dataIndex: "reason" },
                ]}
              />
            </>
          )}
        </>
      )}
      <Button onClick={onAgain} style={{ marginTop: 12 }}>
        {text.importAnother}
      </Button>
    </section>
  );
}

/**
 * Drop a CSV, see its first rows, say which column is which, then import it into the campaign with
 * upload progress, and read the report.
 */
function ContactImport({ campaign, onImported, leaveGuard }: { campaign: Campaign; onImported: () => void; leaveGuard: RefObject<LeaveContacts | null> }) {
  const { getToken } = useAuthSession();
  const toasts = useToasts();
  const [file, setFile] = useState<ReadFile | null>(null);
  const [mapping, setMapping] = useState<ColumnMapping | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [stayed, setStayed] = useState(false);
  // The open "import before going on?" question: how to answer the wizard that is waiting to leave.
  const [asking, setAsking] = useState<{ answer: (leave: boolean) => void } | null>(null);
  const running = useRef<Promise<Outcome | null> | null>(null);
  const question = useRef<Promise<boolean> | null>(null);

  const reset = () => {
    setFile(null);
    setMapping(null);
    setProblem(null);
    setOutcome(null);
    setStayed(false);
  };

  const read = async (picked: File) => {
    reset();
    if (picked.size > CONTACT_IMPORT_MAX_BYTES) return setProblem(text.fileTooLarge(MAX_SIZE_TEXT));
    let csv: ParsedCsv;
    try {
      csv = parseCsv(await picked.text());
    } catch {
      return setProblem(text.fileUnreadable);
    }
    if (csv.rows.length === 0) return setProblem(text.fileEmpty);
    setFile({ name: picked.name, csv });
    setMapping(guessMapping(csv.header));
  };

  const send = async (): Promise<Outcome | null> => {
    if (!file || !mapping || mapping.number === null) return null;
    const chunks = inChunks(contactsOf(file.csv, mapping));
    const parts: Array<{ report: ContactImportReport; offset: number }> = [];
    setProgress(0);
    try {
      const token = await getToken();
      let offset = 0;
      for (const [index, contacts] of chunks.entries()) {
        const answer = await sendWithProgress<{ data: ContactImportReport }>({
          path: CAMPAIGN_PATHS.contacts(campaign.id),
          body: { contacts },
          token,
          onProgress: ({ loaded, total }) => setProgress((index + (total ? loaded / total : 0)) / chunks.length),
        });
        parts.push({ report: answer.data, offset });
        offset += contacts.length;
      }
      const result = { report: mergeReports(parts) };
      setOutcome(result);
      return result;
    } catch (error) {
      const sent = parts.reduce((sum, part, index) => sum + (chunks[index]?.length ?? 0), 0);
      const result = { error: (error as ApiError | undefined)?.message ?? text.importFailed, ...(parts.length ? { report: mergeReports(parts), sent } : {}) };
      setOutcome(result);
      return result;
    } finally {
      setProgress(null);
      onImported();
    }
  };

  // One upload at a time, whether it was started from the step's button or from the question.
  const upload = () => (running.current ??= send().finally(() => (running.current = null)));

  /** Nothing to read before going on: no error, no invalid row, no added contact left waiting for a zone. */
  const clean = (result: Outcome | null): result is Outcome & { report: ContactImportReport } =>
    !!result?.report && !result.error && result.report.invalid_count === 0 && !(result.report.needs_timezone > 0 && !campaign.schedule.fallback_timezone);

  const importThenAnswer = async (answer: (leave: boolean) => void) => {
    const result = await upload();
    setAsking(null);
    if (clean(result)) {
      const { report } = result;
      toasts.success(text.importedGoingOn(file?.name ?? "", formatCount(report.accepted), report.duplicates, report.dnc, formatCount(report.total_contacts)));
      answer(true);
      return;
    }
    if (result && !result.error) setStayed(true);
    answer(false);
  };

  const leave: LeaveContacts = () => {
    if (!file || outcome) return true;
    question.current ??= new Promise<boolean>((answer) => {
      setAsking({ answer });
      // Asked while an import started from the step is on its way: wait for it, then the same rule.
      if (running.current) void importThenAnswer(answer);
    }).finally(() => (question.current = null));
    return question.current;
  };

  useEffect(() => {
    leaveGuard.current = leave;
    return () => {
      leaveGuard.current = null;
    };
  });

  if (file && mapping && outcome) return <ImportReport outcome={outcome} file={file} mapping={mapping} campaign={campaign} stayed={stayed} onAgain={reset} />;

  if (!file || !mapping) {
    return (
      <>
        <Upload.Dragger
          accept=".csv,text/csv"
          showUploadList={false}
          maxCount={1}
          beforeUpload={(picked) => {
            void read(picked);
            return false;
          }}
        >
          <p className="ant-upload-drag-icon">
            <InboxOutlined />
          </p>
          <p className="ant-upload-text">{text.drop}</p>
          <p className="ant-upload-hint">{text.dropHint(MAX_SIZE_TEXT)}</p>
        </Upload.Dragger>
        {problem && <Alert type="error" showIcon role="alert" style={{ marginTop: 12 }} message={problem} />}
      </>
    );
  }

  const { header } = file.csv;
  const set = (patch: Partial<ColumnMapping>) => setMapping({ ...mapping, ...patch });
  const others = header.flatMap((_, index) => ([mapping.number, mapping.name, mapping.timezone].includes(index) ? [] : [index]));
  const variables = variableColumns(header, mapping);
  const tooMany = variables.length > CONTACT_VARIABLES_MAX;
  const rows = file.csv.rows.length;
  // Why the file cannot go in as its columns stand; the question then offers only Discard and Stay.
  const blocked = mapping.number === null ? text.numberColumnRequired : tooMany ? text.tooManyVariables(CONTACT_VARIABLES_MAX) : null;
  const uploading = progress !== null;
  const answer = (leave: boolean) => {
    if (!asking) return;
    if (leave) reset();
    setAsking(null);
    asking.answer(leave);
  };

  return (
    <section aria-label={text.mapping}>
      <Flex wrap gap={8} align="center" justify="space-between" style={{ marginBottom: 12 }}>
        <Typography.Text strong>{text.fileSummary(file.name, rows)}</Typography.Text>
        <Button size="small" onClick={reset} disabled={progress !== null}>
          {text.chooseAnother}
        </Button>
      </Flex>
      <Typography.Title level={5}>{text.mapping}</Typography.Title>
      <div className="campaign-import__mapping">
        <ColumnSelect label={text.numberColumn} value={mapping.number} header={header} onChange={(number) => set({ number })} />
        <ColumnSelect label={text.nameColumn} value={mapping.name} header={header} optional onChange={(name) => set({ name })} />
        <ColumnSelect label={text.timezoneColumn} value={mapping.timezone} header={header} optional onChange={(timezone) => set({ timezone })} />
      </div>
      {mapping.number === null && <Alert type="warning" showIcon message={text.numberColumnRequired} style={{ marginBottom: 12 }} />}
      <Form.Item label={text.variables} extra={text.variablesHint} style={{ marginBottom: 12 }}>
        {others.length === 0 ? (
          <Typography.Text type="secondary">{text.noVariables}</Typography.Text>
        ) : (
          <Checkbox.Group
            value={variables}
            onChange={(checked) => set({ skipped: others.filter((index) => !(checked as number[]).includes(index)) })}
            options={others.map((index) => ({ value: index, label: columnLabel(header, index) }))}
          />
        )}
      </Form.Item>
      {tooMany && <Alert type="error" showIcon message={text.tooManyVariables(CONTACT_VARIABLES_MAX)} style={{ marginBottom: 12 }} />}
      <Preview file={file} mapping={mapping} />
      {progress !== null && (
        <div role="status" style={{ marginTop: 12 }}>
          <Typography.Text>{text.importing(rows)}</Typography.Text>
          <Progress percent={Math.round(progress * 100)} aria-label={text.importProgress} status="active" />
        </div>
      )}
      <Button type="primary" style={{ marginTop: 12 }} disabled={blocked !== null} loading={uploading} onClick={() => void upload()}>
        {text.import(rows)}
      </Button>
      <Modal
        open={asking !== null}
        title={blocked ? text.pendingBlockedTitle(file.name) : text.pendingTitle(rows, file.name)}
        width="min(520px, calc(100vw - 16px))"
        // Room for the close button: a long file name wraps the title under it on a phone.
        styles={{ header: { paddingInlineEnd: 28 } }}
        onCancel={() => answer(false)}
        closable={!uploading}
        keyboard={!uploading}
        maskClosable={false}
        destroyOnHidden
        footer={
          <Flex wrap gap={8} justify="flex-end">
            <Button disabled={uploading} onClick={() => answer(false)}>
              {text.pendingStay}
            </Button>
            <Button disabled={uploading} onClick={() => answer(true)}>
              {text.pendingDiscard}
            </Button>
            {!blocked && (
              <Button type="primary" loading={uploading} onClick={() => asking && void importThenAnswer(asking.answer)}>
                {text.import(rows)}
              </Button>
            )}
          </Flex>
        }
      >
        <Typography.Paragraph>{blocked ? text.pendingBlockedBody : text.pendingBody}</Typography.Paragraph>
        {blocked && <Alert type="warning" showIcon message={blocked} />}
        {uploading && (
          <div role="status">
            <Typography.Text>{text.importing(rows)}</Typography.Text>
            <Progress percent={Math.round(progress * 100)} aria-label={text.importProgress} status="active" />
          </div>
        )}
      </Modal>
    </section>
  );
}

/**
 * The campaign's contacts: how many it has, and a CSV import while its state takes new ones (draft,
 * paused); a scheduled or running campaign must be paused first, a finished one takes none.
 */
export function ContactsStep({ campaign, onImported, leaveGuard }: { campaign: Campaign; onImported: () => void; leaveGuard: RefObject<LeaveContacts | null> }) {
  const open = CONTACT_IMPORT_STATUSES.includes(campaign.status);
  return (
    <>
      <Typography.Title level={5}>{text.contactsCount(formatCount(campaign.counts.total))}</Typography.Title>
      <Typography.Paragraph type="secondary">{text.contactsIntro}</Typography.Paragraph>
      {open ? (
        <ContactImport campaign={campaign} onImported={onImported} leaveGuard={leaveGuard} />
      ) : (
        <Alert type="info" showIcon message={FINAL_CAMPAIGN_STATUSES.includes(campaign.status) ? text.contactsFinished : text.contactsPaused} />
      )}
    </>
  );
}
