import { useId } from "react";
import { Link } from "react-router";
import type { DashboardAgent } from "../../../contract/dashboard";
import { strings } from "../../config/strings";
import type { CallFilterPatch } from "../calls/call-filter-values";
import { formatCount, formatMinutes, formatRate, formatUsd } from "./dashboard-format";

const text = strings.dashboard;
const columns = text.columns;

/**
 * The period's figures per agent, most calls first: a plain table (antd's Table would add about
 * 70 KB to the landing page for a few rows). Each agent opens its calls of the period.
 */
export function AgentTable({ agents, periodLink }: { agents: DashboardAgent[]; periodLink: (extra?: CallFilterPatch) => string }) {
  const titleId = useId();
  if (agents.length === 0) return null;
  return (
    <section aria-labelledby={titleId} className="dash-panel dash-panel--wide">
      <h2 id={titleId} className="dash-panel__title">
        {text.agentsTitle}
      </h2>
      <div className="dash-table-scroll">
        <table className="dash-table">
          <thead>
            <tr>
              <th scope="col">{columns.agent}</th>
              <th scope="col">{columns.calls}</th>
              <th scope="col">{columns.minutes}</th>
              <th scope="col">{columns.cost}</th>
              <th scope="col">{columns.answerRate}</th>
              <th scope="col">{columns.successRate}</th>
            </tr>
          </thead>
          <tbody>
            {agents.map((agent) => {
              const name = agent.agent_name ?? text.deletedAgents;
              return (
                <tr key={agent.agent_id ?? "deleted"}>
                  <th scope="row">
                    {agent.agent_id ? (
                      <Link to={periodLink({ agentId: agent.agent_id })} aria-label={text.agentLink(name, formatCount(agent.calls))}>
                        {name}
                      </Link>
                    ) : (
                      name
                    )}
                  </th>
                  <td>{formatCount(agent.calls)}</td>
                  <td>{formatMinutes(agent.minutes)}</td>
                  <td>{formatUsd(agent.cost)}</td>
                  <td>{formatRate(agent.answer_rate)}</td>
                  <td>{formatRate(agent.success_rate)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
