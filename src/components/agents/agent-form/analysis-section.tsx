import { SUCCESS_EVALUATION_RUBRICS } from "../../../../contract/agent";
import { strings } from "../../../config/strings";
import { FormSection } from "./section";
import { SettingSelect, SettingText } from "./setting-fields";

const f = strings.agents.fields;
const rubrics = SUCCESS_EVALUATION_RUBRICS.map((rubric) => ({ value: rubric, label: rubric }));

/** What is made of each call afterwards: summary, structured data, success evaluation (Vapi's analysisPlan). */
export function AnalysisSection() {
  return (
    <FormSection id="agent-analysis" title={strings.agents.sections.analysis}>
      <SettingText path={["analysis_plan", "summary_prompt"]} label={f.summary_prompt} rows={3} />
      <SettingText path={["analysis_plan", "structured_data_prompt"]} label={f.structured_data_prompt} rows={3} />
      <SettingText path={["analysis_plan", "success_evaluation_prompt"]} label={f.success_evaluation_prompt} rows={3} />
      <SettingSelect
        path={["analysis_plan", "success_evaluation_rubric"]}
        label={f.success_evaluation_rubric}
        options={rubrics}
      />
      <SettingText
        path={["analysis_plan", "server_url"]}
        label={f.server_url}
        extra={f.server_urlHint}
        placeholder="https://example.com/vapi-events"
        nullable
      />
    </FormSection>
  );
}
