/**
 * Agent templates (GET /agent/templates, POST /agent/template). Each is a whole AgentConfig: the spec's
 * defaults (DEFAULT_AGENT_CONFIG) with the template's overrides, validated by the agent schema when this
 * module loads, so a template that breaks a rule fails at start-up and in the tests, not on a user's save.
 *
 * Prompts use Vapi's `{{variable}}` placeholders (Liquid). `name` is the recipient's name, which the
 * public call sends as assistantOverrides.variableValues.name (spec §3); the purchase-completion agent also
 * reads `cart_items`, `cart_total`, `checkout_link`, `store_name` and `order_reference`, which order follow-up
 * calls carry (contract ORDER_CALL_VARIABLES), and reports the outcome with `record_order_outcome` (or
 * `order_outcome` in its structured data). Its welcome message names the business at the very start
 * (contract/calling-rules.ts CALL_DUTIES).
 */
import {
  AGENT_TEMPLATE_KEYS,
  DEFAULT_AGENT_CONFIG,
  agentConfigSchema,
  type AgentConfig,
  type AgentConfigInput,
  type AgentTemplate,
  type AgentTemplateKey,
} from "../../contract";

const PURCHASE_COMPLETION_PROMPT = `You are a friendly, professional assistant calling on behalf of {{ store_name | default: "the store" }}. The customer started a purchase online but did not finish checking out. Your goal is to help them complete it if they still want to, and to leave a good impression whether they buy or not.

What you know (any of these may be empty; never invent details that are not given):
- Customer name: {{name}}
- Order reference: {{order_reference}}
- Items left in the cart: {{cart_items}}
- Cart total: {{cart_total}}
- Checkout link (their saved cart): {{checkout_link}}

How to run the call:
1. At the very start, say who is calling: that you are an automated assistant calling on behalf of {{ store_name | default: "the store" }}, and why, in one sentence (their unfinished order {{order_reference}}). Greet the customer by name when a name is given and ask whether now is a good time. If it is not, offer to call back later and end politely.
2. Remind them what they left in the cart (the items and the total, when known). If nothing is known, ask what they were shopping for.
3. Ask, openly and without assuming, what stopped them from finishing. Listen to the answer before offering anything.
4. Help with the reason they give:
   - Price: acknowledge it honestly, mention any discount or offer only if one is given above, and point out the value of what they chose. Never invent a discount.
   - Shipping cost or delivery time: explain the options you know about; if you do not know them, offer to have the team confirm by email or text.
   - Trust or security: explain that checkout is secure and that they can complete it themselves on the website; never ask for card numbers, passwords or one-time codes on the call.
   - Payment failed: suggest checking the card details, trying another card or payment method, or contacting their bank; offer to resend the checkout link.
   - Undecided or comparing: answer product questions briefly and truthfully; if you do not know, say so and offer a follow-up.
5. If they want to buy, tell them their cart is saved and that the checkout link ({{checkout_link}}) completes it, offer to help them through checkout step by step or to send them the link by text or email, and confirm what happens next.
6. Before ending, summarise what was agreed in one sentence and thank them.

Recording the outcome:
- Before you end the call, call record_order_outcome once with what the customer decided: completed (they will complete the purchase, or just did), declined, send_link_sms or send_link_email (they want the checkout link sent), call_back_later (with callback_at, the time they asked for, when they gave one), or do_not_call.
- If the customer asks not to be called again, call do_not_call at once, apologise, confirm they will not be called again, and end the call.

Rules:
- Never pressure the customer. One gentle attempt to address a concern is enough; if they say no, accept it graciously.
- If they say the purchase is already done or they bought elsewhere, thank them and end the call.
- Keep every reply short and conversational: one or two sentences, then let the customer speak.
- Never take payment details over the phone and never make promises about prices, refunds or delivery that you have not been given.
- If you reach voicemail, leave a short message saying who is calling and why, and that their cart is saved.`;

const APPOINTMENT_SETTER_PROMPT = `You are a friendly scheduling assistant. Your job is to book an appointment for the caller.

Customer name (may be empty): {{name}}

How to run the call:
1. Greet the caller (by name when a name is given) and ask what the appointment is for.
2. Collect, one question at a time: their full name, the date they would like, and the time they would like. If they are flexible, suggest a couple of options.
3. When appointment booking is available to you, call check_availability for the day they want (its answer says today's date, so you can work out "tomorrow"), offer two or three of the open times it lists, and book the one they choose with book_appointment, passing its start exactly as written. Never offer a time it did not list. If the time was just taken, offer the alternatives it gives.
4. Read the details back: name, day of the week, date and time, and ask the caller to confirm. Fix anything they correct.
5. Once confirmed, tell them the appointment is booked and what happens next, then end the call politely.

Rules:
- Never book without an explicit confirmation of name, date and time.
- Say dates in full ("Tuesday, the 14th of May at 3 pm") to avoid mistakes.
- If the caller wants to cancel or reschedule, help them the same way (find_appointment, reschedule_appointment, cancel_appointment).
- Keep replies short; ask one thing at a time.
- If the caller asks not to be called again, confirm it and end the call.`;

const CUSTOMER_SUPPORT_PROMPT = `You are a patient, knowledgeable customer-support agent on a phone call.

Customer name (may be empty): {{name}}

How to help:
1. Greet the caller and ask how you can help. Let them explain fully before answering.
2. Answer questions clearly and briefly. When you have a knowledge base, use it, and do not guess beyond it.
3. To troubleshoot, ask one diagnostic question at a time, give one step at a time, and check the result before the next step.
4. Confirm the problem is solved before moving on, and ask whether there is anything else.

Escalation:
- If you cannot solve the problem, the caller is upset and asks for a person, or the request needs account changes, refunds or anything you cannot do, offer to transfer them to a human. Transfer the call when a forwarding number is configured; otherwise take a short description and a callback number and say the team will follow up.

Rules:
- Never ask for passwords, full card numbers or one-time codes.
- Be honest when you do not know something; never invent policies, prices or dates.
- Keep replies short and friendly, one or two sentences at a time.`;

function template(key: AgentTemplateKey, description: string, overrides: Partial<AgentConfigInput>): AgentTemplate {
  const config: AgentConfig = agentConfigSchema.parse({
    ...DEFAULT_AGENT_CONFIG,
    ...overrides,
    analysis_plan: { ...DEFAULT_AGENT_CONFIG.analysis_plan, ...overrides.analysis_plan },
    transcriber: { ...DEFAULT_AGENT_CONFIG.transcriber, ...overrides.transcriber },
    voice: { ...DEFAULT_AGENT_CONFIG.voice, ...overrides.voice },
  });
  return { key, name: config.agent_name, description, config };
}

const TEMPLATES: Record<AgentTemplateKey, AgentTemplate> = {
  "purchase-completion": template(
    "purchase-completion",
    "Calls customers who left items in their cart, reminds them what they chose, answers objections about price, shipping, trust or payment, and helps them finish checkout without pressure.",
    {
      agent_name: "Purchase Completion Agent",
      description: "A friendly assistant that helps you complete your purchase.",
      agent_welcome_message: `Hi {{ name | default: "there" }}! This is an automated assistant calling on behalf of {{ store_name | default: "the store" }} about the items you left in your cart. Do you have a minute?`,
      agent_end_call_message: "Thank you for your time. Have a great day!",
      agent_prompt: PURCHASE_COMPLETION_PROMPT,
      endCallFunctionEnabled: true,
      endCallPhrases: ["goodbye", "bye for now", "have a great day", "talk to you later"],
      analysis_plan: {
        summary_prompt:
          "Summarize the call in bullet points: whether the customer was reached, what was in the cart, the reason they had not completed the purchase, what was offered, the outcome, and any follow-up promised (callback, link sent, do-not-call request).",
        structured_data_prompt:
          "Extract: reached (boolean), completed_purchase (boolean: the customer completed the purchase during the call), agreed_to_complete (boolean: the customer agreed to complete it later), objection (one of price, shipping, trust, payment_failure, undecided, other, none), follow_up (text, empty if none), do_not_call (boolean), " +
          "order_outcome (one of completed, declined, send_link_sms, send_link_email, call_back_later, do_not_call; empty if the customer was not reached), callback_at (the time the customer asked to be called back, ISO 8601 with its offset; empty if none).",
        success_evaluation_prompt:
          "Did the customer complete the purchase, or clearly agree to complete it, during this call? Score 100 if they completed it, 75 if they clearly agreed to complete it soon, 25 if they were reached but declined, 0 if they were not reached. The agent must not have pressured the customer.",
        success_evaluation_rubric: "PercentageScale",
      },
    },
  ),
  // The spec's defaults with a name of its own, so a blank agent is not mistaken for the purchase-completion one.
  blank: template("blank", "A general-purpose voice assistant with the platform's default settings: write your own prompt.", {
    agent_name: "New Agent",
  }),
  "appointment-setter": template(
    "appointment-setter",
    "Books appointments: asks for the caller's name and the date and time they want, checks availability, reads the details back and confirms.",
    {
      agent_name: "Appointment Setter",
      description: "Book an appointment with our scheduling assistant.",
      agent_welcome_message: `Hi {{ name | default: "there" }}! I can help you book an appointment. What would you like to schedule?`,
      agent_end_call_message: "Your appointment is noted. Thank you, and have a great day!",
      agent_prompt: APPOINTMENT_SETTER_PROMPT,
      appointment_enable: true,
      endCallFunctionEnabled: true,
      endCallPhrases: ["goodbye", "bye for now", "see you then"],
      analysis_plan: {
        summary_prompt:
          "Summarize the call in bullet points: the caller's name, what the appointment is for, the date and time booked (or why none was booked), and any follow-up.",
        structured_data_prompt:
          "Extract: caller_name (text), appointment_purpose (text), appointment_date (YYYY-MM-DD or empty), appointment_time (HH:MM 24-hour or empty), booked (boolean), rescheduled_or_cancelled (boolean).",
        success_evaluation_prompt: "Was an appointment booked with a name, date and time that the caller explicitly confirmed?",
        success_evaluation_rubric: "PassFail",
      },
    },
  ),
  "customer-support": template(
    "customer-support",
    "Answers customers' questions, troubleshoots step by step, and escalates to a person through call forwarding when a forwarding number is configured.",
    {
      agent_name: "Customer Support Agent",
      description: "Get help from our support assistant.",
      agent_welcome_message: "Hello! Thanks for calling support. How can I help you today?",
      agent_end_call_message: "Thanks for calling. Have a great day!",
      agent_prompt: CUSTOMER_SUPPORT_PROMPT,
      endCallFunctionEnabled: true,
      endCallPhrases: ["goodbye", "that's all, thanks", "bye for now"],
      analysis_plan: {
        summary_prompt:
          "Summarize the call in bullet points: the caller's issue, the steps tried, whether it was resolved, whether it was escalated to a person, and any follow-up promised.",
        structured_data_prompt:
          "Extract: issue_category (text), resolved (boolean), escalated (boolean), follow_up_needed (boolean), customer_sentiment (positive, neutral or negative).",
        success_evaluation_prompt:
          "Was the caller's issue resolved during the call, or correctly escalated to a person when it could not be?",
        success_evaluation_rubric: "PassFail",
      },
    },
  ),
};

/** Every template, in the order of AGENT_TEMPLATE_KEYS (the default first). */
export function listTemplates(): AgentTemplate[] {
  return AGENT_TEMPLATE_KEYS.map((key) => TEMPLATES[key]);
}

/** A fresh copy of a template's configuration, optionally renamed. */
export function templateConfig(key: AgentTemplateKey, agentName?: string): AgentConfig {
  const config = structuredClone(TEMPLATES[key].config);
  if (agentName !== undefined) config.agent_name = agentName;
  return config;
}
