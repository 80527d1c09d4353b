import { useEffect } from "react";
import { strings } from "../config/strings";

/**
 * A screen whose content arrives in a later issue: its title and a plain line saying so.
 * Plain elements (styles.css) rather than antd Typography, which alone would weigh more than the shell.
 */
export function ScreenPlaceholder({ title }: { title: string }) {
  useEffect(() => {
    document.title = `${title} · ${strings.appName}`;
  }, [title]);

  return (
    <section className="screen-placeholder">
      <h1>{title}</h1>
      <p>{strings.notBuiltYet}</p>
    </section>
  );
}
