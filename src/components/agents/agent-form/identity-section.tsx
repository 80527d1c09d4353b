import { Col, Row } from "antd";
import { strings } from "../../../config/strings";
import { FormSection } from "./section";
import { SettingText } from "./setting-fields";

const f = strings.agents.fields;

export function IdentitySection() {
  return (
    <FormSection id="agent-identity" title={strings.agents.sections.identity}>
      <Row gutter={16}>
        <Col xs={24} md={16}>
          <SettingText path={["agent_name"]} label={f.agent_name} />
        </Col>
        <Col xs={24} md={8}>
          <SettingText path={["agent_type"]} label={f.agent_type} />
        </Col>
      </Row>
      <SettingText path={["description"]} label={f.description} extra={f.descriptionHint} rows={2} />
      <SettingText
        path={["agent_welcome_message"]}
        label={f.agent_welcome_message}
        extra={f.agent_welcome_messageHint}
        rows={2}
      />
      <SettingText path={["agent_end_call_message"]} label={f.agent_end_call_message} rows={2} />
    </FormSection>
  );
}
