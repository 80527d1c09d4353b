import { Empty, Typography } from "antd";
import type { CallMessage } from "../../../contract/call";
import { strings } from "../../config/strings";
import { formatOffset } from "./call-format";

const text = strings.callLogs.detail;

/** The call's turns as a conversation: the customer on the left, the assistant on the right, mm:ss from the start. */
export function CallTranscript({ messages, transcript }: { messages: CallMessage[]; transcript: string | null }) {
  if (!messages.length) {
    // A provider may send only the flat transcript: show it as text (never as HTML).
    return transcript ? (
      <Typography.Paragraph className="call-transcript__plain">{transcript}</Typography.Paragraph>
    ) : (
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={text.noTranscript} />
    );
  }
  return (
    <ol className="call-transcript" aria-label={text.transcript}>
      {messages.map((message, index) => {
        const who = message.role === "user" ? text.user : text.assistant;
        return (
          <li key={`${message.time}-${index}`} className={`call-transcript__turn call-transcript__turn--${message.role}`}>
            <div className="call-transcript__meta">
              <span>{who}</span> <time>{formatOffset(message.seconds_from_start)}</time>
            </div>
            <div className="call-transcript__bubble">{message.message}</div>
          </li>
        );
      })}
    </ol>
  );
}
