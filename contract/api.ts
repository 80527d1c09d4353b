/** API paths below the base (spec §7), shared by the server's routes and the console's data provider. */
export const API_BASE = "/api";

const id = (value: string) => encodeURIComponent(value);

export const apiPaths = {
  health: "/health",
  config: "/config",
  docs: "/docs",
  auth: "/auth",
  authToken: "/auth/token",
  invite: (organizationId: string) => `/organization/${id(organizationId)}/invite`,
  agents: "/agent/",
  agent: (agentId: string) => `/agent/${id(agentId)}`,
  agentTemplates: "/agent/templates",
  agentFromTemplate: "/agent/template",
  agentAppointmentToggle: (agentId: string) => `/agent/${id(agentId)}/appointment-toggle`,
  /** `key`: the private link's key (the owner's consent); without it the clone answers 404. */
  agentClone: (agentId: string, key?: string | null) => `/agent/${id(agentId)}/clone${key ? `?key=${id(key)}` : ""}`,
  agentPublic: (agentId: string) => `/agent/${id(agentId)}/public`,
  transcribers: "/transcriber/",
  voices: "/voice/",
  voiceModels: "/voice/models",
  llms: "/llm/",
  fileUpload: "/file/upload",
  files: "/file/files",
  file: (fileId: string) => `/file/file/${id(fileId)}`,
} as const;
