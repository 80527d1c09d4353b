import { Form, Input, InputNumber, Select, Switch } from "antd";
import type { ReactNode } from "react";
import { strings } from "../../../config/strings";
import { emptyAsNull, settingRange, settingRule, type SettingPath } from "./form-values";

interface SettingProps {
  path: SettingPath;
  label: ReactNode;
  extra?: ReactNode;
  disabled?: boolean;
}

const name = (path: SettingPath) => [...path] as string[];

/**
 * A number with the contract's range: shown under the field and checked on every change with zod's own
 * message. The input does not clamp (antd's min/max would silently turn a typed 5 into 10).
 */
export function SettingNumber({ path, label, extra, disabled, unit = "", step }: SettingProps & { unit?: string; step?: number }) {
  const { min, max, integer } = settingRange(path);
  const range = strings.agents.range(min, max, unit);
  return (
    <Form.Item
      name={name(path)}
      label={label}
      rules={[settingRule(path)]}
      extra={extra ? <>{extra} {range}</> : range}
    >
      <InputNumber style={{ width: "100%" }} step={step ?? (integer ? 1 : 0.1)} disabled={disabled} />
    </Form.Item>
  );
}

export function SettingSwitch({ path, label, extra, disabled }: SettingProps) {
  return (
    <Form.Item name={name(path)} label={label} extra={extra} valuePropName="checked" rules={[settingRule(path)]}>
      <Switch disabled={disabled} />
    </Form.Item>
  );
}

/** Text; `nullable` settings store null when left empty. */
export function SettingText({
  path,
  label,
  extra,
  disabled,
  rows,
  nullable,
  placeholder,
  normalize,
}: SettingProps & { rows?: number; nullable?: boolean; placeholder?: string; normalize?: (value: string) => string }) {
  return (
    <Form.Item
      name={name(path)}
      label={label}
      extra={extra}
      rules={[settingRule(path)]}
      getValueProps={(value: unknown) => ({ value: value ?? "" })}
      normalize={(value: unknown) => {
        const text = typeof value === "string" && normalize ? normalize(value) : value;
        return nullable ? emptyAsNull(text) : text;
      }}
    >
      {rows ? (
        <Input.TextArea autoSize={{ minRows: rows, maxRows: rows * 3 }} placeholder={placeholder} disabled={disabled} />
      ) : (
        <Input placeholder={placeholder} disabled={disabled} />
      )}
    </Form.Item>
  );
}

/** A list of short texts typed one by one (Enter adds one). */
export function SettingTags({ path, label, extra, disabled, separators }: SettingProps & { separators?: string[] }) {
  return (
    <Form.Item name={name(path)} label={label} extra={extra} rules={[settingRule(path)]}>
      <Select mode="tags" open={false} suffixIcon={null} tokenSeparators={separators} disabled={disabled} />
    </Form.Item>
  );
}

export interface ChoiceOption {
  value: string;
  label: string;
}

/** Keeps a stored value selectable when the catalogue does not list it (or could not be loaded). */
export function withCurrent(options: ChoiceOption[], current: unknown): ChoiceOption[] {
  if (typeof current !== "string" || !current || options.some((option) => option.value === current)) return options;
  return [{ value: current, label: current }, ...options];
}

export function SettingSelect({
  path,
  label,
  extra,
  disabled,
  options,
  onPick,
  allowClear,
  placeholder,
}: SettingProps & {
  options: ChoiceOption[];
  onPick?: (value: string | null) => void;
  allowClear?: boolean;
  placeholder?: string;
}) {
  return (
    <Form.Item
      name={name(path)}
      label={label}
      extra={extra}
      rules={[settingRule(path)]}
      // A cleared select means "not set": null in the form, and no value (the placeholder) on screen.
      normalize={allowClear ? (value: unknown) => value ?? null : undefined}
      getValueProps={(value: unknown) => ({ value: value ?? undefined })}
    >
      <Select
        showSearch
        optionFilterProp="label"
        options={options}
        disabled={disabled}
        allowClear={allowClear}
        placeholder={placeholder}
        onChange={(value: string | undefined) => onPick?.(value ?? null)}
      />
    </Form.Item>
  );
}
