import js from "@eslint/js";
import globals from "globals";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist", "node_modules", "test-results", ".data", "server/db/migrations"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "warn",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "off",
    },
  },
  {
    // Spec §9's toasts (durations, places, at most 20) live in src/lib/toast.ts: console code toasts through it.
    files: ["src/**/*.{ts,tsx}"],
    ignores: ["src/lib/toast.ts", "src/providers/notification.tsx"],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "antd", importNames: ["message", "notification"], message: "Toast through useToasts() (src/lib/toast.ts)." }] },
      ],
      "no-restricted-syntax": [
        "error",
        {
          selector: "VariableDeclarator[init.callee.property.name='useApp'] > ObjectPattern > Property[key.name=/^(message|notification)$/]",
          message: "Toast through useToasts() (src/lib/toast.ts): it carries the spec's durations and places.",
        },
      ],
    },
  },
  {
    // Plain scripts the page loads as they are (public/load-check.js): a browser's globals.
    files: ["public/**/*.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.browser } },
  },
  {
    files: ["tests/**/*.{ts,tsx}"],
    rules: { "@typescript-eslint/no-non-null-assertion": "off", "@typescript-eslint/no-explicit-any": "off" },
  },
);
