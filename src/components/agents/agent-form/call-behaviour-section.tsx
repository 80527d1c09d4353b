import { Col, Row } from "antd";
import { strings } from "../../../config/strings";
import { FormSection } from "./section";
import { SettingNumber, SettingSwitch, SettingTags, SettingText } from "./setting-fields";

const f = strings.agents.fields;
const seconds = strings.agents.units.seconds;

/** "+1 (415) 555-0123" → "+14155550123": separators people type are dropped, E.164 has none. */
const phoneDigits = (value: string) => value.replace(/[\s().-]/g, "");

export function CallBehaviourSection() {
  return (
    <FormSection id="agent-call" title={strings.agents.sections.callBehaviour}>
      <Row gutter={16}>
        <Col xs={24} md={12}>
          <SettingNumber
            path={["silence_timeout_seconds"]}
            label={f.silence_timeout_seconds}
            extra={f.silence_timeout_secondsHint}
            unit={seconds}
          />
        </Col>
        <Col xs={24} md={12}>
          <SettingNumber path={["max_duration_seconds"]} label={f.max_duration_seconds} unit={seconds} step={30} />
        </Col>
      </Row>
      <SettingSwitch path={["endCallFunctionEnabled"]} label={f.endCallFunctionEnabled} />
      <SettingTags path={["endCallPhrases"]} label={f.endCallPhrases} extra={f.endCallPhrasesHint} />
      {/* react-international-phone is not installed yet; a plain input with the contract's E.164 check. */}
      <SettingText
        path={["forward_phone_number"]}
        label={f.forward_phone_number}
        extra={f.forward_phone_numberHint}
        placeholder="+14155550123"
        nullable
        normalize={phoneDigits}
      />
      <SettingText path={["voice", "voice_mail"]} label={f.voice_mail} extra={f.voice_mailHint} rows={2} nullable />
    </FormSection>
  );
}
