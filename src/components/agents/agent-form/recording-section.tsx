import { Col, Form, Row } from "antd";
import { strings } from "../../../config/strings";
import { BackgroundSoundInput } from "./background-sound-input";
import { settingRule } from "./form-values";
import { FormSection } from "./section";
import { SettingSwitch } from "./setting-fields";

const f = strings.agents.fields;

export function RecordingSection() {
  return (
    <FormSection id="agent-recording" title={strings.agents.sections.recording}>
      <Row gutter={16}>
        <Col xs={24} md={8}>
          <SettingSwitch path={["voice", "audio_recording"]} label={f.audio_recording} />
        </Col>
        <Col xs={24} md={8}>
          <SettingSwitch path={["voice", "video_recording"]} label={f.video_recording} />
        </Col>
        <Col xs={24} md={8}>
          <SettingSwitch path={["voice", "background_denoising"]} label={f.background_denoising} />
        </Col>
      </Row>
      <Form.Item name={["voice", "background_sound"]} label={f.background_sound} rules={[settingRule(["voice", "background_sound"])]}>
        <BackgroundSoundInput />
      </Form.Item>
    </FormSection>
  );
}
