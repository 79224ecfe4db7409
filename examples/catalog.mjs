// A catalog of ~60 realistic tools (GitHub, Slack, database, weather, email,
// calendar, files, payments, CRM, issue tracking) built with Mastra's
// `createTool` and zod schemas. Each `execute` returns a small canned result
// and records the call in `executed`.

import { createTool } from '@mastra/core/tools'
import { z } from 'zod'

const repo = z.string().describe('Repository in "owner/name" form, e.g. "acme/web"')
const channel = z.string().describe('Slack channel name or id, e.g. "#releases"')
const email = z.string().describe('Email address')
const city = z.string().describe('City name, optionally with country code, e.g. "Paris, FR"')
const table = z.string().describe('Table name')
const isoDate = z.string().describe('ISO 8601 date or date-time')

/** [id, description, inputSchema, cannedResult(input)] */
const DEFS = [
  // ---------------------------------------------------------------- GitHub
  [
    'github_create_issue',
    'Create a new issue in a GitHub repository with a title, body, labels and assignees.',
    z.object({ repo, title: z.string(), body: z.string().optional(), labels: z.array(z.string()).optional(), assignees: z.array(z.string()).optional() }),
    (i) => ({ number: 4812, url: `https://github.com/${i.repo}/issues/4812` }),
  ],
  [
    'github_list_issues',
    'List issues in a GitHub repository, filtered by state, label or assignee.',
    z.object({ repo, state: z.enum(['open', 'closed', 'all']).default('open'), label: z.string().optional(), assignee: z.string().optional() }),
    () => ({ issues: [{ number: 4810, title: 'Login page flickers' }] }),
  ],
  [
    'github_comment_issue',
    'Add a comment to an existing GitHub issue or pull request.',
    z.object({ repo, number: z.number().int(), body: z.string() }),
    () => ({ commentId: 99120 }),
  ],
  [
    'github_close_issue',
    'Close a GitHub issue, optionally marking it as not planned.',
    z.object({ repo, number: z.number().int(), reason: z.enum(['completed', 'not_planned']).optional() }),
    () => ({ closed: true }),
  ],
  [
    'github_list_pull_requests',
    'List pull requests for a GitHub repository, optionally filtered by state, base branch or author.',
    z.object({ repo, state: z.enum(['open', 'closed', 'all']).default('open'), base: z.string().optional(), author: z.string().optional() }),
    () => ({ pullRequests: [{ number: 377, title: 'Bump deps' }] }),
  ],
  [
    'github_create_pull_request',
    'Open a pull request from a head branch into a base branch.',
    z.object({ repo, title: z.string(), head: z.string(), base: z.string().default('main'), body: z.string().optional(), draft: z.boolean().optional() }),
    () => ({ number: 378 }),
  ],
  [
    'github_merge_pull_request',
    'Merge a GitHub pull request using merge, squash or rebase.',
    z.object({ repo, number: z.number().int(), method: z.enum(['merge', 'squash', 'rebase']).default('squash'), commitTitle: z.string().optional() }),
    () => ({ merged: true, sha: '9f2c1e0' }),
  ],
  [
    'github_request_review',
    'Request reviews on a pull request from users or teams.',
    z.object({ repo, number: z.number().int(), reviewers: z.array(z.string()) }),
    () => ({ requested: true }),
  ],
  [
    'github_get_file',
    'Read the contents of a file in a GitHub repository at a branch, tag or commit.',
    z.object({ repo, path: z.string(), ref: z.string().optional() }),
    () => ({ content: '# README' }),
  ],
  [
    'github_list_workflow_runs',
    'List recent GitHub Actions workflow runs and their conclusions.',
    z.object({ repo, workflow: z.string().optional(), branch: z.string().optional(), limit: z.number().int().max(100).optional() }),
    () => ({ runs: [{ id: 1, conclusion: 'success' }] }),
  ],
  [
    'github_create_release',
    'Create a GitHub release for a tag, with generated or custom release notes.',
    z.object({ repo, tag: z.string(), name: z.string().optional(), notes: z.string().optional(), prerelease: z.boolean().optional() }),
    () => ({ id: 5521 }),
  ],

  // ----------------------------------------------------------------- Slack
  [
    'slack_send_message',
    'Post a message to a Slack channel or direct message, optionally in a thread.',
    z.object({ channel, text: z.string(), threadTs: z.string().optional() }),
    () => ({ ts: '1718000000.000100' }),
  ],
  [
    'slack_create_channel',
    'Create a public or private Slack channel.',
    z.object({ name: z.string(), isPrivate: z.boolean().default(false), topic: z.string().optional() }),
    () => ({ channelId: 'C07ABCDEF' }),
  ],
  ['slack_invite_to_channel', 'Invite one or more users to a Slack channel.', z.object({ channel, users: z.array(z.string()) }), () => ({ ok: true })],
  [
    'slack_list_channels',
    'List Slack channels the bot can see, optionally including archived ones.',
    z.object({ includeArchived: z.boolean().optional(), limit: z.number().int().optional() }),
    () => ({ channels: ['#general', '#releases'] }),
  ],
  [
    'slack_search_messages',
    'Search Slack message history with Slack search syntax.',
    z.object({ query: z.string(), count: z.number().int().max(100).optional() }),
    () => ({ matches: [] }),
  ],
  ['slack_add_reaction', 'Add an emoji reaction to a Slack message.', z.object({ channel, ts: z.string(), emoji: z.string() }), () => ({ ok: true })],
  ['slack_set_channel_topic', 'Set the topic of a Slack channel.', z.object({ channel, topic: z.string() }), () => ({ ok: true })],
  [
    'slack_upload_file',
    'Upload a file or text snippet to a Slack channel.',
    z.object({ channel, filename: z.string(), content: z.string(), title: z.string().optional() }),
    () => ({ fileId: 'F07XYZ' }),
  ],

  // -------------------------------------------------------------- Database
  [
    'db_query',
    'Run a read-only SQL query against the analytics database and return rows.',
    z.object({
      sql: z.string(),
      params: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
      limit: z.number().int().max(10000).optional(),
    }),
    () => ({ rows: [{ count: 42 }] }),
  ],
  [
    'db_insert',
    'Insert one or more rows into a database table.',
    z.object({ table, rows: z.array(z.record(z.string(), z.unknown())) }),
    (i) => ({ inserted: i.rows?.length ?? 0 }),
  ],
  [
    'db_update',
    'Update rows in a database table that match a filter.',
    z.object({ table, set: z.record(z.string(), z.unknown()), where: z.record(z.string(), z.unknown()) }),
    () => ({ updated: 1 }),
  ],
  [
    'db_delete',
    'Delete rows from a database table that match a filter.',
    z.object({ table, where: z.record(z.string(), z.unknown()) }),
    () => ({ deleted: 1 }),
  ],
  ['db_list_tables', 'List the tables in a database schema.', z.object({ schema: z.string().default('public') }), () => ({ tables: ['users', 'orders'] })],
  [
    'db_describe_table',
    'Describe the columns, types, indexes and constraints of a table.',
    z.object({ table, schema: z.string().default('public') }),
    () => ({ columns: [{ name: 'id', type: 'uuid' }] }),
  ],
  [
    'db_explain_query',
    'Show the query plan for a SQL statement without running it.',
    z.object({ sql: z.string(), analyze: z.boolean().optional() }),
    () => ({ plan: 'Seq Scan on users' }),
  ],
  [
    'db_create_backup',
    'Start a backup snapshot of a database.',
    z.object({ database: z.string(), label: z.string().optional() }),
    () => ({ backupId: 'bk_123' }),
  ],

  // --------------------------------------------------------------- Weather
  [
    'weather_get_forecast',
    'Get the daily weather forecast for a city: high/low temperature, precipitation chance and conditions for the next days.',
    z.object({ city, days: z.number().int().min(1).max(14).default(3), units: z.enum(['metric', 'imperial']).default('metric') }),
    (i) => ({
      city: i.city,
      units: i.units ?? 'metric',
      days: [
        { date: '2025-06-10', high: 24, low: 15, precipitation: 0.1, conditions: 'sunny' },
        { date: '2025-06-11', high: 22, low: 14, precipitation: 0.6, conditions: 'showers' },
        { date: '2025-06-12', high: 25, low: 16, precipitation: 0.0, conditions: 'clear' },
      ].slice(0, i.days ?? 3),
    }),
  ],
  [
    'weather_get_current',
    'Get the current weather conditions for a city: temperature, humidity, wind.',
    z.object({ city, units: z.enum(['metric', 'imperial']).default('metric') }),
    () => ({ temperature: 21, humidity: 0.55, wind: 12 }),
  ],
  [
    'weather_get_hourly',
    'Get an hour-by-hour forecast for the next 48 hours.',
    z.object({ city, hours: z.number().int().max(48).default(24) }),
    () => ({ hours: [] }),
  ],
  ['weather_get_alerts', 'Get active severe weather alerts (storms, heat, flooding) for a region.', z.object({ region: z.string() }), () => ({ alerts: [] })],
  ['weather_get_air_quality', 'Get the air quality index and pollutant levels for a city.', z.object({ city }), () => ({ aqi: 38 })],

  // ----------------------------------------------------------------- Email
  [
    'email_send',
    'Send an email to one or more recipients, with optional CC, BCC and attachments.',
    z.object({
      to: z.array(email),
      subject: z.string(),
      body: z.string(),
      cc: z.array(email).optional(),
      bcc: z.array(email).optional(),
      attachments: z.array(z.string()).optional(),
    }),
    () => ({ messageId: '<abc@mail>' }),
  ],
  [
    'email_search',
    'Search the mailbox by sender, subject, date range or free text.',
    z.object({ query: z.string(), from: email.optional(), after: isoDate.optional(), before: isoDate.optional() }),
    () => ({ messages: [] }),
  ],
  ['email_read', 'Read a single email message by id, including headers and body.', z.object({ messageId: z.string() }), () => ({ subject: 'Hi', body: '...' })],
  [
    'email_reply',
    'Reply to an email message, optionally to all recipients.',
    z.object({ messageId: z.string(), body: z.string(), replyAll: z.boolean().optional() }),
    () => ({ messageId: '<def@mail>' }),
  ],
  [
    'email_create_draft',
    'Save an email as a draft without sending it.',
    z.object({ to: z.array(email), subject: z.string(), body: z.string() }),
    () => ({ draftId: 'd_1' }),
  ],
  ['email_archive', 'Archive one or more email messages.', z.object({ messageIds: z.array(z.string()) }), () => ({ archived: 1 })],

  // -------------------------------------------------------------- Calendar
  [
    'calendar_create_event',
    'Create a calendar event with attendees, location and video link.',
    z.object({ title: z.string(), start: isoDate, end: isoDate, attendees: z.array(email).optional(), location: z.string().optional() }),
    () => ({ eventId: 'ev_1' }),
  ],
  [
    'calendar_list_events',
    'List calendar events in a time range.',
    z.object({ from: isoDate, to: isoDate, calendarId: z.string().optional() }),
    () => ({ events: [] }),
  ],
  [
    'calendar_update_event',
    'Change the time, title or attendees of a calendar event.',
    z.object({ eventId: z.string(), start: isoDate.optional(), end: isoDate.optional(), title: z.string().optional() }),
    () => ({ ok: true }),
  ],
  [
    'calendar_delete_event',
    'Cancel a calendar event and notify attendees.',
    z.object({ eventId: z.string(), notify: z.boolean().default(true) }),
    () => ({ ok: true }),
  ],
  [
    'calendar_find_free_time',
    'Find free time slots shared by a set of attendees.',
    z.object({ attendees: z.array(email), durationMinutes: z.number().int(), from: isoDate, to: isoDate }),
    () => ({ slots: [] }),
  ],

  // ----------------------------------------------------------------- Files
  [
    'files_upload',
    'Upload a file to cloud storage and return its URL.',
    z.object({ path: z.string(), content: z.string(), contentType: z.string().optional() }),
    () => ({ url: 'https://files.example.com/x' }),
  ],
  ['files_download', 'Download a file from cloud storage.', z.object({ path: z.string() }), () => ({ content: '' })],
  [
    'files_list',
    'List files in a cloud storage folder.',
    z.object({ prefix: z.string().default('/'), recursive: z.boolean().optional() }),
    () => ({ files: [] }),
  ],
  ['files_delete', 'Delete a file from cloud storage.', z.object({ path: z.string() }), () => ({ deleted: true })],
  [
    'files_share_link',
    'Create a time-limited share link for a file.',
    z.object({ path: z.string(), expiresInHours: z.number().int().default(24) }),
    () => ({ url: 'https://files.example.com/s/abc' }),
  ],

  // -------------------------------------------------------------- Payments
  [
    'payments_create_invoice',
    'Create and send an invoice to a customer.',
    z.object({
      customerId: z.string(),
      items: z.array(z.object({ description: z.string(), amountCents: z.number().int(), quantity: z.number().int().default(1) })),
      dueDate: isoDate.optional(),
    }),
    () => ({ invoiceId: 'in_1' }),
  ],
  [
    'payments_refund',
    'Refund all or part of a charge.',
    z.object({ chargeId: z.string(), amountCents: z.number().int().optional(), reason: z.string().optional() }),
    () => ({ refundId: 're_1' }),
  ],
  [
    'payments_list_charges',
    'List recent charges for a customer or the whole account.',
    z.object({ customerId: z.string().optional(), limit: z.number().int().optional() }),
    () => ({ charges: [] }),
  ],
  ['payments_get_balance', 'Get the current account balance by currency.', z.object({}), () => ({ available: [{ currency: 'usd', amountCents: 120000 }] })],
  [
    'payments_create_subscription',
    'Subscribe a customer to a price plan.',
    z.object({ customerId: z.string(), priceId: z.string(), trialDays: z.number().int().optional() }),
    () => ({ subscriptionId: 'sub_1' }),
  ],

  // ------------------------------------------------------------------- CRM
  [
    'crm_create_contact',
    'Create a contact in the CRM.',
    z.object({ name: z.string(), email, company: z.string().optional(), phone: z.string().optional() }),
    () => ({ contactId: 'ct_1' }),
  ],
  ['crm_search_contacts', 'Search CRM contacts by name, email or company.', z.object({ query: z.string() }), () => ({ contacts: [] })],
  [
    'crm_update_deal',
    'Update the stage, amount or owner of a CRM deal.',
    z.object({ dealId: z.string(), stage: z.string().optional(), amount: z.number().optional(), owner: z.string().optional() }),
    () => ({ ok: true }),
  ],
  [
    'crm_log_activity',
    'Log a call, meeting or note against a CRM contact.',
    z.object({ contactId: z.string(), type: z.enum(['call', 'meeting', 'note']), notes: z.string() }),
    () => ({ activityId: 'ac_1' }),
  ],

  // ------------------------------------------------------------ Issue tracker
  [
    'jira_create_ticket',
    'Create a Jira ticket in a project with type, summary and priority.',
    z.object({ project: z.string(), type: z.enum(['bug', 'task', 'story']), summary: z.string(), priority: z.enum(['low', 'medium', 'high']).optional() }),
    () => ({ key: 'OPS-101' }),
  ],
  ['jira_transition_ticket', 'Move a Jira ticket to another workflow status.', z.object({ key: z.string(), status: z.string() }), () => ({ ok: true })],
  ['jira_search', 'Search Jira tickets with JQL.', z.object({ jql: z.string(), maxResults: z.number().int().optional() }), () => ({ issues: [] })],

  // --------------------------------------------------------------- Utility
  [
    'translate_text',
    'Translate text into a target language.',
    z.object({ text: z.string(), targetLanguage: z.string().describe('ISO 639-1 code') }),
    () => ({ text: 'Bonjour' }),
  ],
  ['geocode_address', 'Convert a street address into latitude and longitude.', z.object({ address: z.string() }), () => ({ lat: 48.8566, lon: 2.3522 })],
]

/** Builds the catalog: `Record<id, Tool>`; every execution is pushed to `executed`. */
export function buildCatalog(executed = []) {
  const catalog = {}
  for (const [id, description, inputSchema, result] of DEFS) {
    catalog[id] = createTool({
      id,
      description,
      inputSchema,
      execute: async (input) => {
        executed.push({ tool: id, input })
        return result(input)
      },
    })
  }
  return catalog
}
