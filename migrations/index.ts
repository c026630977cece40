import type { Knex } from 'knex';
import * as m0 from './20261121100000_create_users.js';
import * as m1 from './20261121100100_create_organizations.js';
import * as m2 from './20261121100200_create_org_memberships.js';
import * as m3 from './20261121100300_create_audit_logs.js';
import * as m4 from './20261121100400_create_org_idp_mappings.js';
import * as m5 from './20261121100500_create_permission_action_overrides.js';
import * as m6 from './20261121100600_create_permission_overrides.js';
import * as m7 from './20261121100700_create_personal_access_tokens.js';
import * as m8 from './20261121100800_create_run_tokens.js';
import * as m9 from './20261121100900_create_stream_tickets.js';
import * as m10 from './20261121101000_seed_default_organization.js';
import * as m11 from './20261121110000_add_organizations_is_shared.js';
import * as m12 from './20261122100000_create_secret_backends.js';
import * as m13 from './20261122100100_create_secrets.js';
import * as m14 from './20261122100200_create_secret_values.js';
import * as m15 from './20261122100300_create_secret_key_checks.js';
import * as m16 from './20261122110000_create_sites.js';
import * as m17 from './20261122110100_create_devices.js';
import * as m18 from './20261122120000_create_flows.js';
import * as m19 from './20261122120100_create_flow_versions.js';
import * as m20 from './20261122130000_create_runs.js';
import * as m21 from './20261122140000_create_webhook_endpoints.js';
import * as m22 from './20261122140100_create_webhook_deliveries.js';
import * as m23 from './20261123100000_notify_membership_changes.js';
import * as m24 from './20261124100000_notify_trigger_config_changes.js';
import * as m25 from './20261125100000_notify_organization_changes.js';
import * as m26 from './20261125110000_add_stream_tickets_pat_id.js';
import * as m27 from './20261126100000_add_runs_execution_columns.js';
import * as m28 from './20261126100100_index_runs_queue.js';
import * as m29 from './20261126100200_allow_runs_trigger_source_flow.js';
import * as m30 from './20261126100300_create_workers.js';
import * as m31 from './20261126100400_create_worker_env_keys.js';
import * as m32 from './20261126100500_create_step_runs.js';
import * as m33 from './20261126100600_create_run_events.js';
import * as m34 from './20261126100700_notify_run_queue_changes.js';
import * as m35 from './20261126110200_add_runs_parent_attempt.js';
import * as m36 from './20261126110201_index_runs_child_per_parent_step.js';
import * as m37 from './20261126140000_allow_runs_status_awaiting_approval.js';
import * as m38 from './20261126140010_create_approvals.js';
import * as m39 from './20261126140020_index_approvals_pending_expiry.js';
import * as m40 from './20261126140030_create_approval_decisions.js';
import * as m41 from './20261126140100_create_run_artifacts.js';
import * as m42 from './20261126140110_create_run_artifact_chunks.js';
import * as m43 from './20261126140200_create_monitors.js';
import * as m44 from './20261126140201_create_monitor_samples.js';
import * as m45 from './20261126140202_add_runs_monitor_seq.js';
import * as m46 from './20261126140203_close_monitors_on_run_end.js';
import * as m47 from './20261126140300_create_schedules.js';
import * as m48 from './20261126140301_create_schedule_fires.js';
import * as m49 from './20261126140302_index_schedules_due.js';
import * as m50 from './20261126140400_create_maintenance_job_runs.js';
import * as m51 from './20261126140401_create_maintenance_jobs.js';
import * as m52 from './20261127090000_add_run_artifact_chunks_written_at.js';
import * as m53 from './20261127090100_index_schedule_fires_due_at.js';
import * as m54 from './20261127100000_create_variables.js';
import * as m55 from './20261127100001_index_variables_live_name.js';
import * as m56 from './20261127110000_create_file_repositories.js';
import * as m57 from './20261127110001_index_file_repositories_default.js';
import * as m58 from './20261127110002_create_files.js';
import * as m59 from './20261127110003_create_file_folders.js';
import * as m60 from './20261127120000_create_git_repositories.js';
import * as m61 from './20261127120100_create_flow_git_links.js';
import * as m62 from './20261127120200_create_git_sync_history.js';
import * as m63 from './20261127130000_create_notification_destinations.js';
import * as m64 from './20261127130100_create_flow_notification_subscriptions.js';
import * as m65 from './20261127130200_create_notification_outbox.js';
import * as m66 from './20261127130300_create_notification_attempts.js';
import * as m67 from './20261127130400_create_enqueue_notifications.js';
import * as m68 from './20261127130500_notify_run_events.js';
import * as m69 from './20261127130600_notify_approval_events.js';
import * as m70 from './20261127140000_create_inventory_providers.js';
import * as m71 from './20261127140100_create_inventory_sync_runs.js';
import * as m72 from './20261127140200_create_inventory_objects.js';
import * as m73 from './20261127140300_add_sites_provider_seen_at.js';
import * as m74 from './20261127140301_add_devices_provider_seen_at.js';
import * as m75 from './20261127150000_add_run_tokens_attempt.js';
import * as m76 from './20261127150001_add_run_tokens_run_fk.js';
import * as m77 from './20261127150100_create_iac_states.js';
import * as m78 from './20261127150101_create_iac_state_versions.js';
import * as m79 from './20261127160000_create_registry_credentials.js';
import * as m80 from './20261127160100_notify_run_token_revocations.js';
import * as m81 from './20261127160101_notify_run_ends_to_run_tokens.js';
import * as m82 from './20261128090000_index_notification_outbox_finished.js';
import * as m83 from './20261128100000_create_flow_attachment_blobs.js';
import * as m84 from './20261128100001_create_flow_attachments.js';
import * as m85 from './20261128100002_create_flow_version_attachments.js';
import * as m86 from './20261128120000_index_runs_org_created_stats.js';
import * as m87 from './20261128120100_index_runs_org_finished.js';
import * as m88 from './20261128120200_index_runs_org_active.js';
import * as m89 from './20261128130000_create_config_exchange_operations.js';
import * as m90 from './20261128140000_create_platform_sync_profiles.js';
import * as m91 from './20261128140100_create_platform_sync_plans.js';
import * as m92 from './20261128140200_create_platform_sync_authorizations.js';
import * as m93 from './20261128140300_create_platform_sync_runs.js';
import * as m94 from './20261128140400_create_platform_sync_resolutions.js';
import * as m95 from './20261128140500_create_platform_sync_applied_items.js';
import * as m96 from './20261128150000_add_run_artifacts_repository_id.js';
import * as m97 from './20261128150001_allow_run_artifacts_repository_storage.js';
import * as m98 from './20261128150002_index_run_artifacts_repository_id.js';
import * as m99 from './20261128170000_add_secrets_declared_keys.js';
import * as m100 from './20261128180000_release_iac_locks_on_run_end.js';
import * as m101 from './20261128180001_index_iac_states_lock_run_id.js';
import * as m102 from './20261128200000_add_iac_states_hold.js';
import * as m103 from './20261128200001_index_iac_states_hold_run_id.js';
import * as m104 from './20261128200002_release_iac_holds_on_run_end.js';
import * as m105 from './20261129090000_create_retired_org_slugs.js';

export interface Migration extends Knex.Migration {
  readonly name: string;
}

/** Every migration, oldest first. A test checks this list against the files in this folder. */
export const MIGRATIONS: readonly Migration[] = [
  { name: '20261121100000_create_users', up: m0.up, down: m0.down },
  { name: '20261121100100_create_organizations', up: m1.up, down: m1.down },
  { name: '20261121100200_create_org_memberships', up: m2.up, down: m2.down },
  { name: '20261121100300_create_audit_logs', up: m3.up, down: m3.down },
  { name: '20261121100400_create_org_idp_mappings', up: m4.up, down: m4.down },
  { name: '20261121100500_create_permission_action_overrides', up: m5.up, down: m5.down },
  { name: '20261121100600_create_permission_overrides', up: m6.up, down: m6.down },
  { name: '20261121100700_create_personal_access_tokens', up: m7.up, down: m7.down },
  { name: '20261121100800_create_run_tokens', up: m8.up, down: m8.down },
  { name: '20261121100900_create_stream_tickets', up: m9.up, down: m9.down },
  { name: '20261121101000_seed_default_organization', up: m10.up, down: m10.down },
  { name: '20261121110000_add_organizations_is_shared', up: m11.up, down: m11.down },
  { name: '20261122100000_create_secret_backends', up: m12.up, down: m12.down },
  { name: '20261122100100_create_secrets', up: m13.up, down: m13.down },
  { name: '20261122100200_create_secret_values', up: m14.up, down: m14.down },
  { name: '20261122100300_create_secret_key_checks', up: m15.up, down: m15.down },
  { name: '20261122110000_create_sites', up: m16.up, down: m16.down },
  { name: '20261122110100_create_devices', up: m17.up, down: m17.down },
  { name: '20261122120000_create_flows', up: m18.up, down: m18.down },
  { name: '20261122120100_create_flow_versions', up: m19.up, down: m19.down },
  { name: '20261122130000_create_runs', up: m20.up, down: m20.down },
  { name: '20261122140000_create_webhook_endpoints', up: m21.up, down: m21.down },
  { name: '20261122140100_create_webhook_deliveries', up: m22.up, down: m22.down },
  { name: '20261123100000_notify_membership_changes', up: m23.up, down: m23.down },
  { name: '20261124100000_notify_trigger_config_changes', up: m24.up, down: m24.down },
  { name: '20261125100000_notify_organization_changes', up: m25.up, down: m25.down },
  { name: '20261125110000_add_stream_tickets_pat_id', up: m26.up, down: m26.down },
  { name: '20261126100000_add_runs_execution_columns', up: m27.up, down: m27.down },
  { name: '20261126100100_index_runs_queue', up: m28.up, down: m28.down },
  { name: '20261126100200_allow_runs_trigger_source_flow', up: m29.up, down: m29.down },
  { name: '20261126100300_create_workers', up: m30.up, down: m30.down },
  { name: '20261126100400_create_worker_env_keys', up: m31.up, down: m31.down },
  { name: '20261126100500_create_step_runs', up: m32.up, down: m32.down },
  { name: '20261126100600_create_run_events', up: m33.up, down: m33.down },
  { name: '20261126100700_notify_run_queue_changes', up: m34.up, down: m34.down },
  { name: '20261126110200_add_runs_parent_attempt', up: m35.up, down: m35.down },
  { name: '20261126110201_index_runs_child_per_parent_step', up: m36.up, down: m36.down },
  { name: '20261126140000_allow_runs_status_awaiting_approval', up: m37.up, down: m37.down },
  { name: '20261126140010_create_approvals', up: m38.up, down: m38.down },
  { name: '20261126140020_index_approvals_pending_expiry', up: m39.up, down: m39.down },
  { name: '20261126140030_create_approval_decisions', up: m40.up, down: m40.down },
  { name: '20261126140100_create_run_artifacts', up: m41.up, down: m41.down },
  { name: '20261126140110_create_run_artifact_chunks', up: m42.up, down: m42.down },
  { name: '20261126140200_create_monitors', up: m43.up, down: m43.down },
  { name: '20261126140201_create_monitor_samples', up: m44.up, down: m44.down },
  { name: '20261126140202_add_runs_monitor_seq', up: m45.up, down: m45.down },
  { name: '20261126140203_close_monitors_on_run_end', up: m46.up, down: m46.down },
  { name: '20261126140300_create_schedules', up: m47.up, down: m47.down },
  { name: '20261126140301_create_schedule_fires', up: m48.up, down: m48.down },
  { name: '20261126140302_index_schedules_due', up: m49.up, down: m49.down },
  { name: '20261126140400_create_maintenance_job_runs', up: m50.up, down: m50.down },
  { name: '20261126140401_create_maintenance_jobs', up: m51.up, down: m51.down },
  { name: '20261127090000_add_run_artifact_chunks_written_at', up: m52.up, down: m52.down },
  { name: '20261127090100_index_schedule_fires_due_at', up: m53.up, down: m53.down },
  { name: '20261127100000_create_variables', up: m54.up, down: m54.down },
  { name: '20261127100001_index_variables_live_name', up: m55.up, down: m55.down },
  { name: '20261127110000_create_file_repositories', up: m56.up, down: m56.down },
  { name: '20261127110001_index_file_repositories_default', up: m57.up, down: m57.down },
  { name: '20261127110002_create_files', up: m58.up, down: m58.down },
  { name: '20261127110003_create_file_folders', up: m59.up, down: m59.down },
  { name: '20261127120000_create_git_repositories', up: m60.up, down: m60.down },
  { name: '20261127120100_create_flow_git_links', up: m61.up, down: m61.down },
  { name: '20261127120200_create_git_sync_history', up: m62.up, down: m62.down },
  { name: '20261127130000_create_notification_destinations', up: m63.up, down: m63.down },
  { name: '20261127130100_create_flow_notification_subscriptions', up: m64.up, down: m64.down },
  { name: '20261127130200_create_notification_outbox', up: m65.up, down: m65.down },
  { name: '20261127130300_create_notification_attempts', up: m66.up, down: m66.down },
  { name: '20261127130400_create_enqueue_notifications', up: m67.up, down: m67.down },
  { name: '20261127130500_notify_run_events', up: m68.up, down: m68.down },
  { name: '20261127130600_notify_approval_events', up: m69.up, down: m69.down },
  { name: '20261127140000_create_inventory_providers', up: m70.up, down: m70.down },
  { name: '20261127140100_create_inventory_sync_runs', up: m71.up, down: m71.down },
  { name: '20261127140200_create_inventory_objects', up: m72.up, down: m72.down },
  { name: '20261127140300_add_sites_provider_seen_at', up: m73.up, down: m73.down },
  { name: '20261127140301_add_devices_provider_seen_at', up: m74.up, down: m74.down },
  { name: '20261127150000_add_run_tokens_attempt', up: m75.up, down: m75.down },
  { name: '20261127150001_add_run_tokens_run_fk', up: m76.up, down: m76.down },
  { name: '20261127150100_create_iac_states', up: m77.up, down: m77.down },
  { name: '20261127150101_create_iac_state_versions', up: m78.up, down: m78.down },
  { name: '20261127160000_create_registry_credentials', up: m79.up, down: m79.down },
  { name: '20261127160100_notify_run_token_revocations', up: m80.up, down: m80.down },
  { name: '20261127160101_notify_run_ends_to_run_tokens', up: m81.up, down: m81.down },
  { name: '20261128090000_index_notification_outbox_finished', up: m82.up, down: m82.down },
  { name: '20261128100000_create_flow_attachment_blobs', up: m83.up, down: m83.down },
  { name: '20261128100001_create_flow_attachments', up: m84.up, down: m84.down },
  { name: '20261128100002_create_flow_version_attachments', up: m85.up, down: m85.down },
  { name: '20261128120000_index_runs_org_created_stats', up: m86.up, down: m86.down },
  { name: '20261128120100_index_runs_org_finished', up: m87.up, down: m87.down },
  { name: '20261128120200_index_runs_org_active', up: m88.up, down: m88.down },
  { name: '20261128130000_create_config_exchange_operations', up: m89.up, down: m89.down },
  { name: '20261128140000_create_platform_sync_profiles', up: m90.up, down: m90.down },
  { name: '20261128140100_create_platform_sync_plans', up: m91.up, down: m91.down },
  { name: '20261128140200_create_platform_sync_authorizations', up: m92.up, down: m92.down },
  { name: '20261128140300_create_platform_sync_runs', up: m93.up, down: m93.down },
  { name: '20261128140400_create_platform_sync_resolutions', up: m94.up, down: m94.down },
  { name: '20261128140500_create_platform_sync_applied_items', up: m95.up, down: m95.down },
  { name: '20261128150000_add_run_artifacts_repository_id', up: m96.up, down: m96.down },
  { name: '20261128150001_allow_run_artifacts_repository_storage', up: m97.up, down: m97.down },
  { name: '20261128150002_index_run_artifacts_repository_id', up: m98.up, down: m98.down },
  { name: '20261128170000_add_secrets_declared_keys', up: m99.up, down: m99.down },
  { name: '20261128180000_release_iac_locks_on_run_end', up: m100.up, down: m100.down },
  { name: '20261128180001_index_iac_states_lock_run_id', up: m101.up, down: m101.down },
  { name: '20261128200000_add_iac_states_hold', up: m102.up, down: m102.down },
  { name: '20261128200001_index_iac_states_hold_run_id', up: m103.up, down: m103.down },
  { name: '20261128200002_release_iac_holds_on_run_end', up: m104.up, down: m104.down },
  { name: '20261129090000_create_retired_org_slugs', up: m105.up, down: m105.down },
];
