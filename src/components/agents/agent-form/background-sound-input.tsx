import { Input, Select, Space } from "antd";
import { BACKGROUND_SOUNDS } from "../../../../contract/agent";
import { strings } from "../../../config/strings";

const f = strings.agents.fields;
type Choice = (typeof BACKGROUND_SOUNDS)[number] | "url";

/** background_sound is "off", "office" or the URL of an audio file: a choice, and the URL when it is one. */
export function BackgroundSoundInput({
  id,
  value,
  onChange,
  disabled,
}: {
  id?: string;
  value?: string;
  onChange?: (value: string) => void;
  disabled?: boolean;
}) {
  const choice: Choice = (BACKGROUND_SOUNDS as readonly string[]).includes(value ?? "off") ? ((value ?? "off") as Choice) : "url";
  return (
    <Space.Compact style={{ width: "100%" }}>
      <Select<Choice>
        id={id}
        style={{ width: 180 }}
        value={choice}
        disabled={disabled}
        onChange={(next) => onChange?.(next === "url" ? "" : next)}
        options={[
          { value: "off", label: f.background_soundOff },
          { value: "office", label: f.background_soundOffice },
          { value: "url", label: f.background_soundUrl },
        ]}
      />
      {choice === "url" && (
        <Input
          aria-label={f.background_soundUrl}
          value={value}
          disabled={disabled}
          placeholder={f.background_soundUrlPlaceholder}
          onChange={(event) => onChange?.(event.target.value.trim())}
        />
      )}
    </Space.Compact>
  );
}
