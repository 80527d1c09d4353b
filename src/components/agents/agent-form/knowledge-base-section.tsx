import { DeleteOutlined, UploadOutlined } from "@ant-design/icons";
import { Button, Form, Popconfirm, Select, Typography } from "antd";
import { useRef } from "react";
import { FILE_ACCEPT, formatByteLimit } from "../../../../contract/file";
import { strings } from "../../../config/strings";
import { FILE_SIZE_TEXT, FILE_TYPES_TEXT, useKnowledgeBaseFiles } from "../../../hooks/use-knowledge-base-files";
import { settingRule, type AgentFormValues } from "./form-values";
import { FormSection } from "./section";
import { withCurrent } from "./setting-fields";

const f = strings.agents.fields;
const kb = strings.agents.knowledgeBase;

/**
 * The files this agent may search (knowledge_base_files, saved with the agent), and the organisation's
 * files: upload (selected for this agent at once) and delete, both immediate.
 */
export function KnowledgeBaseSection({ canDeleteFiles, disabled }: { canDeleteFiles: boolean; disabled?: boolean }) {
  const form = Form.useFormInstance<AgentFormValues>();
  const { files, isUploading, upload, remove } = useKnowledgeBaseFiles();
  const selected = Form.useWatch("knowledge_base_files", form) ?? [];
  const options = selected.reduce(
    (list, id) => withCurrent(list, id),
    files.map((file) => ({ value: file.id, label: file.name })),
  );

  // A plain file input behind the button: antd's Upload would add its upload list and progress bars.
  const input = useRef<HTMLInputElement>(null);
  const pickFile = async (file: File | undefined) => {
    if (!file) return;
    const stored = await upload(file);
    if (stored) form.setFieldValue("knowledge_base_files", [...(form.getFieldValue("knowledge_base_files") ?? []), stored.id]);
  };
  const uploadButton = (
    <>
      <input
        ref={input}
        type="file"
        accept={FILE_ACCEPT}
        hidden
        // The card header's styles would otherwise override `hidden` and show the browser's own file control.
        style={{ display: "none" }}
        aria-label={kb.upload}
        onChange={(event) => {
          void pickFile(event.target.files?.[0]);
          event.target.value = "";
        }}
      />
      <Button
        icon={<UploadOutlined aria-hidden />}
        loading={isUploading}
        disabled={disabled}
        onClick={() => input.current?.click()}
      >
        {kb.upload}
      </Button>
    </>
  );

  return (
    <FormSection id="agent-knowledge" title={strings.agents.sections.knowledgeBase} extra={uploadButton}>
      <Typography.Paragraph type="secondary">{kb.limits(FILE_TYPES_TEXT, FILE_SIZE_TEXT)}</Typography.Paragraph>
      <Form.Item name="knowledge_base_files" label={f.knowledge_base_files} rules={[settingRule(["knowledge_base_files"])]}>
        <Select mode="multiple" options={options} optionFilterProp="label" placeholder={f.knowledge_base_filesPlaceholder} disabled={disabled} />
      </Form.Item>
      <Typography.Text strong>{kb.files}</Typography.Text>
      {files.length === 0 ? (
        <Typography.Paragraph type="secondary">{kb.noFiles}</Typography.Paragraph>
      ) : (
        <ul className="agent-files">
          {files.map((file) => (
            <li key={file.id} className="agent-files__item">
              <Typography.Text>{file.name}</Typography.Text>
              <Typography.Text type="secondary">{formatByteLimit(file.size_bytes)}</Typography.Text>
              {canDeleteFiles && (
                <Popconfirm
                  title={kb.deleteConfirm}
                  okText={strings.agents.delete}
                  okButtonProps={{ danger: true }}
                  cancelText={strings.agents.cancel}
                  onConfirm={async () => {
                    if (await remove(file)) {
                      const ids: string[] = form.getFieldValue("knowledge_base_files") ?? [];
                      if (ids.includes(file.id)) form.setFieldValue("knowledge_base_files", ids.filter((id) => id !== file.id));
                    }
                  }}
                >
                  <Button type="text" size="small" danger icon={<DeleteOutlined />} aria-label={kb.deleteFile(file.name)} />
                </Popconfirm>
              )}
            </li>
          ))}
        </ul>
      )}
    </FormSection>
  );
}
