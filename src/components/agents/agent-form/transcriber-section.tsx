import { Col, Form, Row } from "antd";
import { strings } from "../../../config/strings";
import type { AgentCatalogues } from "../../../hooks/use-agent-catalogues";
import type { AgentFormValues } from "./form-values";
import { FormSection } from "./section";
import { SettingSelect, withCurrent } from "./setting-fields";

const f = strings.agents.fields;

/** Speech-to-text provider, model and language (GET /transcriber/). */
export function TranscriberSection({ transcribers }: Pick<AgentCatalogues, "transcribers">) {
  const form = Form.useFormInstance<AgentFormValues>();
  const provider = Form.useWatch(["transcriber", "transcriber_provider"], form);
  const model = Form.useWatch(["transcriber", "transcriber_model"], form);
  const language = Form.useWatch(["transcriber", "transcriber_language"], form);
  const entry = transcribers.find((candidate) => candidate.provider === provider);

  // Another provider: keep the model and language when it has them, else take its first.
  const pickProvider = (next: string | null) => {
    const chosen = transcribers.find((candidate) => candidate.provider === next);
    if (!chosen) return;
    if (!chosen.models.includes(model ?? "") && chosen.models[0]) {
      form.setFieldValue(["transcriber", "transcriber_model"], chosen.models[0]);
    }
    const codes = chosen.languages.map((candidate) => candidate.code);
    if (!codes.includes(language ?? "") && codes[0]) form.setFieldValue(["transcriber", "transcriber_language"], codes[0]);
  };

  return (
    <FormSection id="agent-transcriber" title={strings.agents.sections.transcriber}>
      <Row gutter={16}>
        <Col xs={24} md={8}>
          <SettingSelect
            path={["transcriber", "transcriber_provider"]}
            label={f.transcriber_provider}
            options={withCurrent(transcribers.map((c) => ({ value: c.provider, label: c.name })), provider)}
            onPick={pickProvider}
          />
        </Col>
        <Col xs={24} md={8}>
          <SettingSelect
            path={["transcriber", "transcriber_model"]}
            label={f.transcriber_model}
            options={withCurrent((entry?.models ?? []).map((value) => ({ value, label: value })), model)}
          />
        </Col>
        <Col xs={24} md={8}>
          <SettingSelect
            path={["transcriber", "transcriber_language"]}
            label={f.transcriber_language}
            options={withCurrent(
              (entry?.languages ?? []).map((candidate) => ({ value: candidate.code, label: candidate.name })),
              language,
            )}
          />
        </Col>
      </Row>
    </FormSection>
  );
}
