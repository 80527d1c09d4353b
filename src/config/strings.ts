/**
 * Every sentence a person reads in the console, in one place, so the screens and the tests share them.
 * The wording of the spec's strings (sidebar, invitation, shared-agent link) is kept exactly.
 */
export const strings = {
  appName: "Voice Agents",
  loading: "Loading",
  notBuiltYet: "This screen is not built yet.",

  screens: {
    dashboard: "Dashboard",
    orders: "Orders",
    callLogs: "Call Logs",
    phoneNumbers: "Phone Numbers",
    editAgent: "Edit Agent",
    campaigns: "Campaigns",
    createCampaign: "Create Campaign",
    editCampaign: "Edit Campaign",
    campaignCalls: "Campaign Calls",
    billing: "Billing",
    subscriptions: "Subscriptions",
    calendar: "Calendar",
    calendarPermission: "Calendar Permission",
    webCall: "Web Call",
    publicAgent: "Talk to an agent",
  },

  publicPages: {
    notBuilt: "This page is not built yet.",
  },

  nav: {
    mainLabel: "Main navigation",
    dashboard: { label: "Dashboard", tooltip: "View your dashboard" },
    agents: { label: "Agents", tooltip: "Manage your agents" },
    calls: { label: "Calls", tooltip: "View Call Logs" },
    phoneNumbers: { label: "Phone Numbers", tooltip: "Manage phone numbers" },
    campaigns: { label: "Campaigns", tooltip: "Manage your campaigns" },
    calendar: { label: "Calendar", tooltip: "Manage calendar and appointments" },
    billing: { label: "Billing", tooltip: "Manage billing and usage" },
  },

  shell: {
    collapseSidebar: "Collapse sidebar",
    expandSidebar: "Expand sidebar",
    viewPlans: "VIEW PLANS",
    viewPlansAccessible: "View plans",
    logoAlt: "Voice Agents",
  },

  boot: {
    configFailed: "The console cannot reach the server.",
    configFailedHint: "Check that the API server is running, then try again.",
    retry: "Try again",
  },

  auth: {
    signInTitle: "Sign in to Voice Agents",
    signUpTitle: "Create your account",
    name: "Name",
    email: "Email",
    password: "Password",
    signIn: "Sign in",
    createAccountLink: "Create an account",
    createAccount: "Create account",
    haveAccount: "Already have an account?",
    signInLink: "Sign in instead",
    signInFailed: "Sign-in failed. Please try again.",
    signUpFailed: "The account could not be created. Please try again.",
    nameRequired: "Please enter your name",
    emailRequired: "Please enter a valid email address",
    passwordRequired: "Please enter your password",
    passwordTooShort: "Use at least 8 characters",
    signOut: "Sign out",
    accountMenu: "Account menu",
  },

  organization: {
    switcher: "Switch organization",
    noOrganization: "No organization",
    create: "Create organization",
    invite: "Invite member",
    leave: "Leave organization",
    leaveConfirmTitle: "Leave this organization?",
    leaveConfirmBody: (name: string) => `You will lose access to ${name} and its agents, calls and numbers.`,
    leaveConfirmOk: "Leave",
    cancel: "Cancel",
    nameLabel: "Name",
    nameRequired: "Please enter the organization's name",
    createTitle: "Create organization",
    createOk: "Create organization",
    createFailed: "The organization could not be created.",
    leaveFailed: "You could not leave the organization.",
    switchFailed: "The organization could not be selected.",
    firstTitle: "Create your organization",
    firstBody: "Agents, calls and phone numbers belong to an organization. Create one to start.",
  },

  invite: {
    title: "Invite member",
    emailLabel: "Email",
    roleLabel: "Role",
    submit: "Send invitation",
    noOrganization: "No organization selected",
    success: "Invitation sent successfully!",
    failed: "Failed to send invitation",
    roles: { "org:member": "Member (org:member)", "org:admin": "Admin (org:admin)" },
  },

  privateAgent: {
    loginRequired: "Login is required to access this agent",
    goToLogin: "Go to Login",
    goToDashboard: "Go to Dashboard",
    notBuiltTitle: "Shared agent",
    notBuilt: "Cloning a shared agent into your account is not built yet.",
  },

  errors: {
    network: "The server could not be reached. Check your connection and try again.",
    requestFailed: (status: number) => `The request failed (status ${status}).`,
  },
} as const;
