import { Col, Row, Typography } from "antd";
import { strings } from "../../../config/strings";
import { FormSection } from "./section";
import { SettingNumber, SettingSwitch } from "./setting-fields";

const f = strings.agents.fields;
const { seconds, words } = strings.agents.units;

/** Vapi's startSpeakingPlan and stopSpeakingPlan (ARCHITECTURE.md §6). */
export function SpeakingPlanSection() {
  return (
    <FormSection id="agent-speaking" title={strings.agents.sections.speakingPlan}>
      <Typography.Title level={5}>{f.speakingStart}</Typography.Title>
      <Row gutter={16}>
        <Col xs={24} md={12}>
          <SettingNumber path={["voice", "voice_start_wait_seconds"]} label={f.voice_start_wait_seconds} unit={seconds} />
        </Col>
        <Col xs={24} md={12}>
          <SettingSwitch path={["voice", "voice_start_smart_endpointing_enabled"]} label={f.voice_start_smart_endpointing_enabled} />
        </Col>
        <Col xs={24} md={8}>
          <SettingNumber path={["voice", "voice_start_punctuation_seconds"]} label={f.voice_start_punctuation_seconds} unit={seconds} />
        </Col>
        <Col xs={24} md={8}>
          <SettingNumber
            path={["voice", "voice_start_no_punctuation_seconds"]}
            label={f.voice_start_no_punctuation_seconds}
            unit={seconds}
          />
        </Col>
        <Col xs={24} md={8}>
          <SettingNumber path={["voice", "voice_start_number_seconds"]} label={f.voice_start_number_seconds} unit={seconds} />
        </Col>
      </Row>
      <Typography.Title level={5}>{f.speakingStop}</Typography.Title>
      <Row gutter={16}>
        <Col xs={24} md={8}>
          <SettingNumber path={["voice", "voice_stop_number_of_words"]} label={f.voice_stop_number_of_words} unit={words} />
        </Col>
        <Col xs={24} md={8}>
          <SettingNumber
            path={["voice", "voice_stop_voice_seconds"]}
            label={f.voice_stop_voice_seconds}
            extra={f.voice_stop_voice_secondsHint}
            unit={seconds}
          />
        </Col>
        <Col xs={24} md={8}>
          <SettingNumber path={["voice", "voice_stop_back_off_seconds"]} label={f.voice_stop_back_off_seconds} unit={seconds} />
        </Col>
      </Row>
    </FormSection>
  );
}
