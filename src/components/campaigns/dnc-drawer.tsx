import { DeleteOutlined, UploadOutlined } from "@ant-design/icons";
import { useCustom, useCustomMutation } from "@refinedev/core";
import { keepPreviousData } from "@tanstack/react-query";
import { Alert, App, Button, Drawer, Flex, Form, Input, Progress, Table, Typography, Upload } from "antd";
import { useState } from "react";
import type { DncEntry } from "../../../contract/campaign";
import { CAMPAIGN_PATHS, CONTACT_IMPORT_MAX_BYTES, DNC_REASON_MAX_LENGTH } from "../../../contract/campaign-shared";
import type { ListEnvelope } from "../../../contract/paging";
import { useAuthSession } from "../../auth/session";
import { strings } from "../../config/strings";
import { useToasts } from "../../lib/toast";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { sendWithProgress, type UploadProgress } from "../../providers/data/upload";
import { useDraft } from "../calls/use-draft";
import { ListLoadError, listEmptyText } from "../list-load-error";
import { formatInstant } from "./campaign-format";
import { useCampaignPermissions } from "./use-campaign-permissions";
import { useTablePaging } from "./use-table-paging";

const text = strings.campaigns.dnc;

/** What POST /dnc/ answers: one entry, or a file's counts. */
interface DncCreateResult {
  added: number;
  already_listed: number;
  invalid: Array<{ row: number; reason: string }>;
  entry: DncEntry | null;
}

/** Adding one number (members and admins): number and an optional reason. */
function AddNumberForm({ onAdded }: { onAdded: () => void }) {
  const [form] = Form.useForm<{ number: string; reason?: string }>();
  const toasts = useToasts();
  const [error, setError] = useState<string | null>(null);
  const { mutateAsync, mutation } = useCustomMutation<{ data: DncCreateResult }, ApiError, { number: string; reason?: string | null }>();

  const submit = async (values: { number: string; reason?: string }) => {
    setError(null);
    try {
      const { data } = await mutateAsync({
        url: CAMPAIGN_PATHS.dnc,
        method: "post",
        values: { number: values.number.trim(), reason: values.reason?.trim() || null },
        successNotification: false,
        errorNotification: false,
      });
      const result = data?.data;
      if (result?.invalid.length) {
        setError(result.invalid[0]!.reason);
        return;
      }
      toasts.success(result && result.added === 0 && result.already_listed > 0 ? text.alreadyListed : text.added);
      form.resetFields();
      onAdded();
    } catch (caught) {
      setError((caught as ApiError | undefined)?.message ?? text.addFailed);
    }
  };

  return (
    <Form form={form} layout="vertical" onFinish={(values) => void submit(values)} aria-label={text.add}>
      {error && <Alert type="error" showIcon role="alert" message={text.addFailed} description={error} style={{ marginBottom: 12 }} />}
      <Flex wrap gap={8} align="flex-end">
        <Form.Item name="number" label={text.number} rules={[{ required: true, whitespace: true, message: text.numberRequired }]} style={{ flex: "1 1 160px", marginBottom: 8 }}>
          <Input placeholder={text.numberPlaceholder} inputMode="tel" autoComplete="off" />
        </Form.Item>
        <Form.Item name="reason" label={text.reason} style={{ flex: "2 1 200px", marginBottom: 8 }}>
          <Input placeholder={text.reasonPlaceholder} maxLength={DNC_REASON_MAX_LENGTH} />
        </Form.Item>
        <Form.Item style={{ marginBottom: 8 }}>
          <Button type="primary" htmlType="submit" loading={mutation.isPending}>
            {text.add}
          </Button>
        </Form.Item>
      </Flex>
    </Form>
  );
}

/** A CSV of numbers (POST /dnc/ multipart, field `file`), with upload progress and what came of it. */
function UploadNumbers({ onAdded }: { onAdded: () => void }) {
  const { getToken } = useAuthSession();
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [outcome, setOutcome] = useState<{ result?: DncCreateResult; error?: string } | null>(null);

  const upload = async (file: File) => {
    setOutcome(null);
    if (file.size > CONTACT_IMPORT_MAX_BYTES) {
      setOutcome({ error: strings.campaigns.form.fileTooLarge(`${CONTACT_IMPORT_MAX_BYTES / 1024 / 1024} MB`) });
      return;
    }
    const body = new FormData();
    body.append("file", file, file.name);
    setProgress({ loaded: 0, total: file.size });
    try {
      const answer = await sendWithProgress<{ data: DncCreateResult }>({ path: CAMPAIGN_PATHS.dnc, body, token: await getToken(), onProgress: setProgress });
      setOutcome({ result: answer.data });
      onAdded();
    } catch (caught) {
      setOutcome({ error: (caught as ApiError | undefined)?.message ?? text.uploadFailed });
    } finally {
      setProgress(null);
    }
  };

  return (
    <div className="dnc__upload">
      <Flex wrap gap={8} align="center">
        <Upload
          accept=".csv,text/csv"
          showUploadList={false}
          maxCount={1}
          beforeUpload={(file) => {
            void upload(file);
            return false;
          }}
        >
          <Button icon={<UploadOutlined />} loading={progress !== null}>
            {progress ? text.uploading : text.upload}
          </Button>
        </Upload>
        <Typography.Text type="secondary">{text.uploadHint}</Typography.Text>
      </Flex>
      {progress && progress.total > 0 && <Progress percent={Math.round((progress.loaded / progress.total) * 100)} size="small" aria-label={text.upload} />}
      {outcome?.error && <Alert type="error" showIcon role="alert" message={text.uploadFailed} description={outcome.error} style={{ marginTop: 8 }} />}
      {outcome?.result && (
        <Alert
          type={outcome.result.invalid.length ? "warning" : "success"}
          showIcon
          style={{ marginTop: 8 }}
          message={text.uploaded(outcome.result.added, outcome.result.already_listed)}
          description={
            outcome.result.invalid.length > 0 && (
              <>
                {text.uploadInvalid(outcome.result.invalid.length)}
                <ul style={{ margin: 0, paddingLeft: 20 }}>
                  {outcome.result.invalid.slice(0, 10).map((row) => (
                    <li key={row.row}>
                      {strings.campaigns.form.invalidRow} {row.row}: {row.reason}
                    </li>
                  ))}
                </ul>
              </>
            )
          }
        />
      )}
    </div>
  );
}

/**
 * The organisation's do-not-call list (GET /dnc/): search, pages, add one number or a file, and (admins)
 * remove a number after a confirmation.
 */
export function DncDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { canCreate, canDelete } = useCampaignPermissions();
  const { modal } = App.useApp();
  const toasts = useToasts();
  const { page, pageSize, setPage, pagination } = useTablePaging(text.total);
  const [search, setSearch] = useState("");
  const [draft, setDraft] = useDraft(search, (value) => {
    setSearch(value.trim());
    setPage(1);
  });
  const { result, query } = useCustom<ListEnvelope<DncEntry>, ApiError>({
    url: CAMPAIGN_PATHS.dnc,
    method: "get",
    config: { query: { page, limit: pageSize, ...(search ? { search } : {}) } },
    queryOptions: { enabled: open, placeholderData: keepPreviousData },
    errorNotification: false,
  });
  const { mutateAsync: remove } = useCustomMutation<{ data?: unknown }, ApiError, undefined>();
  const entries = result.data?.data ?? [];
  const total = result.data?.total ?? 0;

  const confirmRemove = (entry: DncEntry) =>
    modal.confirm({
      title: text.removeConfirmTitle,
      content: text.removeConfirmBody(entry.number),
      okText: text.removeOk,
      okButtonProps: { danger: true },
      cancelText: text.cancel,
      onOk: async () => {
        try {
          await remove({ url: CAMPAIGN_PATHS.dncOne(entry.id), method: "delete", values: undefined, successNotification: false, errorNotification: false });
          toasts.success(text.removed);
          void query.refetch();
        } catch (error) {
          toasts.error(text.removeFailed, (error as ApiError | undefined)?.message);
        }
      },
    });

  const refresh = () => void query.refetch();

  return (
    <Drawer open={open} onClose={onClose} title={text.title} width="min(640px, 100vw)" destroyOnHidden closable={{ "aria-label": text.close }}>
      <Typography.Paragraph type="secondary">{text.intro}</Typography.Paragraph>
      {canCreate && (
        <>
          <AddNumberForm onAdded={refresh} />
          <UploadNumbers onAdded={refresh} />
        </>
      )}
      <Input.Search aria-label={text.search} placeholder={text.search} allowClear value={draft} onChange={(event) => setDraft(event.target.value)} onSearch={(value) => setDraft(value)} style={{ margin: "16px 0 12px" }} />
      <ListLoadError query={query} title={text.listFailed} retryLabel={strings.campaigns.retry} />
      <Table<DncEntry>
        rowKey="id"
        size="small"
        dataSource={entries}
        loading={query.isFetching}
        scroll={{ x: "max-content" }}
        locale={{ emptyText: listEmptyText(query.isSuccess, search ? text.emptyFiltered : text.empty) }}
        pagination={pagination(total)}
      >
        <Table.Column<DncEntry> title={text.columns.number} dataIndex="number" render={(value: string) => <Typography.Text copyable={{ text: value }}>{value}</Typography.Text>} />
        <Table.Column<DncEntry> title={text.columns.reason} dataIndex="reason" render={(value: string | null) => value ?? "—"} />
        <Table.Column<DncEntry> title={text.columns.source} dataIndex="source" render={(value: DncEntry["source"]) => text.sources[value] ?? value} />
        <Table.Column<DncEntry> title={text.columns.created} dataIndex="created_at" render={(value: string) => formatInstant(value)} />
        {canDelete && (
          <Table.Column<DncEntry>
            key="remove"
            render={(_, entry) => <Button size="small" type="text" danger icon={<DeleteOutlined />} aria-label={text.remove(entry.number)} onClick={() => confirmRemove(entry)} />}
          />
        )}
      </Table>
    </Drawer>
  );
}
