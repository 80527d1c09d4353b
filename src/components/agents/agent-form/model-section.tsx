import { Col, Form, Row } from "antd";
import { strings } from "../../../config/strings";
import type { AgentCatalogues } from "../../../hooks/use-agent-catalogues";
import type { AgentFormValues } from "./form-values";
import { FormSection } from "./section";
import { SettingNumber, SettingSelect, SettingSwitch, SettingTags, SettingText, withCurrent } from "./setting-fields";

const f = strings.agents.fields;

/** The language model (GET /llm/), its prompt and how it answers. Temperature lives under `voice` in the schema. */
export function ModelSection({ llms }: Pick<AgentCatalogues, "llms">) {
  const form = Form.useFormInstance<AgentFormValues>();
  const provider = Form.useWatch("model_provider", form);
  const model = Form.useWatch("model", form);
  const entry = llms.find((candidate) => candidate.provider === provider);

  const providers = withCurrent(
    llms.map((candidate) => ({ value: candidate.provider, label: candidate.name })),
    provider,
  );
  const models = withCurrent(
    (entry?.models ?? []).map((candidate) => ({ value: candidate.id, label: candidate.name })),
    model,
  );

  const pickProvider = (next: string | null) => {
    const first = llms.find((candidate) => candidate.provider === next)?.models[0];
    if (first) form.setFieldValue("model", first.id);
  };

  return (
    <FormSection id="agent-model" title={strings.agents.sections.model}>
      <Row gutter={16}>
        <Col xs={24} md={12}>
          <SettingSelect path={["model_provider"]} label={f.model_provider} options={providers} onPick={pickProvider} />
        </Col>
        <Col xs={24} md={12}>
          <SettingSelect path={["model"]} label={f.model} options={models} />
        </Col>
      </Row>
      <SettingText path={["agent_prompt"]} label={f.agent_prompt} extra={f.agent_promptHint} rows={8} />
      <Row gutter={16}>
        <Col xs={24} md={8}>
          <SettingNumber path={["max_token"]} label={f.max_token} unit={strings.agents.units.tokens} step={50} />
        </Col>
        <Col xs={24} md={8}>
          <SettingNumber path={["voice", "temprature"]} label={f.temprature} extra={f.temprature_hint} step={0.1} />
        </Col>
        <Col xs={24} md={8}>
          <SettingSwitch path={["emotion_recoginition"]} label={f.emotion_recoginition} />
        </Col>
      </Row>
      <SettingTags path={["model_tool_id"]} label={f.model_tool_id} extra={f.model_tool_idHint} separators={[",", " "]} />
    </FormSection>
  );
}
