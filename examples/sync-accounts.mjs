// sync-accounts.mjs: an agency's file (accounts:), scripted from Node: each account planned,
// shown, and applied once a person says "yes" to the question applyPlan asks in words.
//
//   node examples/sync-accounts.mjs examples/accounts/sitesync.yaml
//
// Each account's key is read from the variable its api_key_env names (ACME_STATS_KEY, …), as the
// CLI reads it. applyPlan writes only with the caller's word: `confirm` asks it here; a script
// that decides itself passes { autoApprove: true }, as `sitesync apply --auto-approve`.
import { createInterface } from 'node:readline/promises';
import { applyPlan, loadWorkspace, plan, readLiveState, renderPlan } from 'sitesync';

const file = process.argv[2] ?? 'sitesync.yaml';
const workspace = await loadWorkspace(file); // every account, every included file; a ConfigError lists every problem
// The answers, a line each (typed, or piped: `yes` for the first account, `no` for the next…).
const rl = createInterface({ input: process.stdin });
const answers = rl[Symbol.asyncIterator]();
const confirm = async (question) => {
  process.stdout.write(`${question} `);
  const { value = '' } = await answers.next();
  return value.trim() === 'yes'; // only "yes" applies, as in `sitesync apply`
};

try {
  for (const config of workspace.configs) {
    const name = config.account?.name ?? 'the account';
    // The key of this account only, from the variable its api_key_env names; the base URL is the account's base_url.
    const options = { apiKey: process.env[config.account?.apiKeyEnv ?? 'SITESYNC_API_KEY'] };
    const live = await readLiveState(config, options);
    const planned = await plan(config, live, options);
    process.stdout.write(`━━ ${name} ━━\n${renderPlan(planned, 'text')}\n`);
    if (planned.changes.length === 0) continue;
    // The same gate as `sitesync apply` first (a SafetyError, before any write), then the question.
    const result = await applyPlan(planned, config, { ...options, confirm }).catch((error) => {
      if (error.name !== 'NotApprovedError') throw error;
      console.log(`${name}: not applied; nothing was written`);
      return undefined;
    });
    if (result) console.log(`${name}: created ${result.created}, updated ${result.updated}, deleted ${result.deleted}, failed ${result.failed}`);
  }
} finally {
  rl.close();
}
