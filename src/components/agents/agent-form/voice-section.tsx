import { Col, Form, Input, Row } from "antd";
import type { CatalogVoice } from "../../../../contract/catalog";
import { strings } from "../../../config/strings";
import type { AgentCatalogues } from "../../../hooks/use-agent-catalogues";
import type { AgentFormValues } from "./form-values";
import { FormSection } from "./section";
import { SettingNumber, SettingSelect, withCurrent } from "./setting-fields";

const f = strings.agents.fields;

/** "Angus (male, Irish)". */
function voiceLabel(voice: CatalogVoice): string {
  const details = [voice.gender, voice.accent].filter(Boolean).join(", ");
  return details ? `${voice.name} (${details})` : voice.name;
}

/** A voice exists in every model of its provider unless it names the ones it is in. */
const inModel = (voice: CatalogVoice, model: string | null | undefined) => !model || !voice.models || voice.models.includes(model);

/** Voice provider and voice (GET /voice/), its model (GET /voice/models) and speed. */
export function VoiceSection({ voices, voiceModels }: Pick<AgentCatalogues, "voices" | "voiceModels">) {
  const form = Form.useFormInstance<AgentFormValues>();
  const provider = Form.useWatch(["voice", "voice_provider"], form);
  const voiceId = Form.useWatch(["voice", "voice_providerId"], form);
  const model = Form.useWatch(["voice", "voice_model"], form);
  const entry = voices.find((candidate) => candidate.provider === provider);
  const available = (entry?.voices ?? []).filter((voice) => inModel(voice, model));

  const setVoice = (voice: CatalogVoice | undefined) => {
    if (!voice) return;
    form.setFieldValue(["voice", "voice_providerId"], voice.id);
    form.setFieldValue(["voice", "voice_name"], voice.name);
  };
  const pickProvider = (next: string | null) => {
    form.setFieldValue(["voice", "voice_model"], null);
    setVoice(voices.find((candidate) => candidate.provider === next)?.voices[0]);
  };
  const pickVoice = (id: string | null) => setVoice(entry?.voices.find((voice) => voice.id === id));
  const pickModel = (next: string | null) => {
    const current = entry?.voices.find((voice) => voice.id === voiceId);
    if (current && !inModel(current, next)) setVoice(entry?.voices.find((voice) => inModel(voice, next)));
  };

  const models = voiceModels.find((candidate) => candidate.provider === provider)?.models ?? [];
  const speedRange = entry?.speedRange;
  const noSpeed = entry !== undefined && !entry.supportsSpeed;

  return (
    <FormSection id="agent-voice" title={strings.agents.sections.voice}>
      <Row gutter={16}>
        <Col xs={24} md={12}>
          <SettingSelect
            path={["voice", "voice_provider"]}
            label={f.voice_provider}
            options={withCurrent(voices.map((candidate) => ({ value: candidate.provider, label: candidate.name })), provider)}
            onPick={pickProvider}
          />
        </Col>
        <Col xs={24} md={12}>
          <SettingSelect
            path={["voice", "voice_providerId"]}
            label={f.voice}
            options={withCurrent(available.map((voice) => ({ value: voice.id, label: voiceLabel(voice) })), voiceId)}
            onPick={pickVoice}
          />
        </Col>
        <Col xs={24} md={12}>
          <SettingSelect
            path={["voice", "voice_model"]}
            label={f.voice_model}
            options={withCurrent(models.map((value) => ({ value, label: value })), model)}
            onPick={pickModel}
            allowClear
            placeholder={f.voice_modelPlaceholder}
          />
        </Col>
        <Col xs={24} md={12}>
          <SettingNumber
            path={["voice", "speed"]}
            label={f.speed}
            step={0.1}
            disabled={noSpeed}
            extra={
              noSpeed
                ? f.speedUnsupported(entry.name)
                : speedRange && strings.agents.providerRange(entry?.name ?? "", speedRange.min, speedRange.max)
            }
          />
        </Col>
      </Row>
      {/* Follows the voice picked above (the provider's display name of voice_providerId). */}
      <Form.Item name={["voice", "voice_name"]} hidden>
        <Input />
      </Form.Item>
    </FormSection>
  );
}
