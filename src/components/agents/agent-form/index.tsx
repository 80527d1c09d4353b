import { Alert, Flex, Form, type FormInstance } from "antd";
import { memo } from "react";
import { strings } from "../../../config/strings";
import { useAgentCatalogues } from "../../../hooks/use-agent-catalogues";
import { AnalysisSection } from "./analysis-section";
import { CallBehaviourSection } from "./call-behaviour-section";
import type { AgentFormValues } from "./form-values";
import { IdentitySection } from "./identity-section";
import { KnowledgeBaseSection } from "./knowledge-base-section";
import { ModelSection } from "./model-section";
import { RecordingSection } from "./recording-section";
import { SpeakingPlanSection } from "./speaking-plan-section";
import { TranscriberSection } from "./transcriber-section";
import { VoiceSection } from "./voice-section";

/**
 * Every setting of the agent (contract/agent.ts), in sections a person recognises. Memoised: the editor
 * re-renders on every change (to know whether anything is unsaved) and the fields update themselves.
 */
export const AgentForm = memo(function AgentForm({
  form,
  initialValues,
  disabled,
  canDeleteFiles,
}: {
  form: FormInstance<AgentFormValues>;
  initialValues: AgentFormValues;
  disabled?: boolean;
  canDeleteFiles: boolean;
}) {
  const catalogues = useAgentCatalogues();
  return (
    <Form<AgentFormValues>
      form={form}
      name="agent"
      layout="vertical"
      requiredMark={false}
      initialValues={initialValues}
      disabled={disabled}
      scrollToFirstError={{ block: "center" }}
    >
      <Flex vertical gap={16}>
        {catalogues.isError && <Alert type="warning" showIcon message={strings.agents.catalogueFailed} />}
        <IdentitySection />
        <ModelSection llms={catalogues.llms} />
        <VoiceSection voices={catalogues.voices} voiceModels={catalogues.voiceModels} />
        <TranscriberSection transcribers={catalogues.transcribers} />
        <CallBehaviourSection />
        <SpeakingPlanSection />
        <RecordingSection />
        <AnalysisSection />
        <KnowledgeBaseSection canDeleteFiles={canDeleteFiles} disabled={disabled} />
      </Flex>
    </Form>
  );
})
