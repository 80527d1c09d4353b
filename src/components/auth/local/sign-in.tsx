import { Alert, Button, Card, Flex, Form, Input, Typography } from "antd";
import { useState } from "react";
import { useAuthSession } from "../../../auth/session";
import { strings } from "../../../config/strings";

type Mode = "signIn" | "signUp";

interface Credentials {
  name?: string;
  email: string;
  password: string;
}

/** Local accounts: sign in with email and password, or create an account (then the first organisation). */
export default function LocalSignIn() {
  const { passwordAuth } = useAuthSession();
  const [mode, setMode] = useState<Mode>("signIn");
  const [error, setError] = useState<string | null>(null);
  const [isSubmitting, setIsSubmitting] = useState(false);
  const [form] = Form.useForm<Credentials>();
  const signingUp = mode === "signUp";

  const switchTo = (next: Mode) => {
    setMode(next);
    setError(null);
  };

  const submit = async ({ name, email, password }: Credentials) => {
    if (!passwordAuth) return;
    setIsSubmitting(true);
    setError(null);
    try {
      if (signingUp) await passwordAuth.signUp((name ?? "").trim(), email.trim(), password);
      else await passwordAuth.signIn(email.trim(), password);
    } catch (cause) {
      const fallback = signingUp ? strings.auth.signUpFailed : strings.auth.signInFailed;
      setError(cause instanceof Error && cause.message ? cause.message : fallback);
      setIsSubmitting(false);
    }
    // On success the session turns signed-in and this screen goes away.
  };

  return (
    <Flex align="center" justify="center" style={{ minHeight: "100vh", padding: 24 }}>
      <Card style={{ width: 400, maxWidth: "100%" }}>
        <Flex justify="center" style={{ marginBottom: 16 }}>
          <img src="/logo-full.svg" width={170} alt={strings.appName} />
        </Flex>
        <Typography.Title level={3} style={{ marginTop: 0, textAlign: "center" }}>
          {signingUp ? strings.auth.signUpTitle : strings.auth.signInTitle}
        </Typography.Title>

        {error && <Alert type="error" showIcon message={error} style={{ marginBottom: 16 }} />}

        <Form<Credentials>
          key={mode}
          form={form}
          name={signingUp ? "sign-up" : "sign-in"}
          layout="vertical"
          requiredMark={false}
          onFinish={submit}
        >
          {signingUp && (
            <Form.Item
              label={strings.auth.name}
              name="name"
              rules={[{ required: true, whitespace: true, message: strings.auth.nameRequired }]}
            >
              <Input autoComplete="name" />
            </Form.Item>
          )}
          <Form.Item
            label={strings.auth.email}
            name="email"
            rules={[{ required: true, type: "email", message: strings.auth.emailRequired }]}
          >
            <Input type="email" autoComplete="email" />
          </Form.Item>
          <Form.Item
            label={strings.auth.password}
            name="password"
            rules={[
              { required: true, message: strings.auth.passwordRequired },
              ...(signingUp ? [{ min: 8, message: strings.auth.passwordTooShort }] : []),
            ]}
          >
            <Input.Password autoComplete={signingUp ? "new-password" : "current-password"} />
          </Form.Item>
          <Button type="primary" htmlType="submit" block loading={isSubmitting}>
            {signingUp ? strings.auth.createAccount : strings.auth.signIn}
          </Button>
        </Form>

        <Flex justify="center" style={{ marginTop: 16 }}>
          {signingUp ? (
            <Typography.Text type="secondary">
              {strings.auth.haveAccount}{" "}
              <Button type="link" style={{ padding: 0 }} onClick={() => switchTo("signIn")}>
                {strings.auth.signInLink}
              </Button>
            </Typography.Text>
          ) : (
            <Button type="link" onClick={() => switchTo("signUp")}>
              {strings.auth.createAccountLink}
            </Button>
          )}
        </Flex>
      </Card>
    </Flex>
  );
}
