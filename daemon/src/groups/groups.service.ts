import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { GroupDetailView, GroupInputSchema, GroupMemberView, GroupView, SessionUser } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { GroupRecord, GroupsRepo, Host, HostsRepo, UsersRepo } from '../store/index.js';
import { groupMembers, invalidCidrs, type GroupDefinition, type GroupMembership } from './groups.rules.js';

type GroupInput = z.output<typeof GroupInputSchema>;

const iso = (ms: number) => new Date(ms).toISOString();

function view(g: GroupRecord, memberCount: number): GroupView {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    host_ids: g.host_ids,
    rules: g.rules,
    member_count: memberCount,
    created_by: g.created_by,
    created_at: iso(g.created_ms),
    updated_at: iso(g.updated_ms),
  };
}

const memberView = (m: GroupMembership): GroupMemberView => ({
  id: m.host.id,
  hostname: m.host.hostname,
  os_family: m.host.os_family,
  explicit: m.explicit,
  by_rules: m.by_rules,
});

/** The ids of the hosts a group holds now (`GroupsService.hostsOf`); `group/not_found` for an unknown group. */
export type GroupHosts = (groupId: string) => Promise<Set<string>>;

function groupNotFound(id: string): AppError {
  return new AppError('group/not_found', 'No such group', { details: { id } });
}

function checked(definition: GroupDefinition): void {
  const bad = invalidCidrs(definition.rules);
  if (bad.length > 0) throw new AppError('group/invalid_rules', 'Not an address or address range', { details: { cidrs: bad } });
}

const userNotFound = (id: string) => new AppError('user/not_found', 'No such user', { details: { id } });
const duplicate = (name: string) => new AppError('group/duplicate_name', 'A group with this name exists', { details: { name } });

/**
 * Host groups: admins define them by naming hosts and by rules (name pattern, OS family, agent
 * product, address range); membership is computed at read time from the current hosts by
 * `groupMembers`, so a new host joins the groups whose rules match it as soon as it is known.
 * Other features ask this service which hosts a group holds (`hostsOf`).
 */
export class GroupsService {
  constructor(
    private readonly repo: GroupsRepo,
    private readonly hosts: Pick<HostsRepo, 'list'>,
    private readonly users: Pick<UsersRepo, 'byId'>,
    private readonly clock: Clock,
    private readonly audit: Pick<AuditService, 'record'>,
    /** What names a group (the approval policy), so deleting it would leave a dangling entry: empty when nothing does. */
    private readonly usedBy: (groupId: string) => Promise<string[]>,
  ) {}

  /** `within`: the host ids a caller limited to host groups may see (null: every host); members are counted among them. */
  async list(within: ReadonlySet<string> | null = null): Promise<GroupView[]> {
    const [groups, hosts] = await Promise.all([this.repo.list(), this.visibleHosts(within)]);
    return groups.map((g) => view(g, groupMembers(g, hosts).length));
  }

  async byId(id: string, within: ReadonlySet<string> | null = null): Promise<GroupDetailView> {
    const [group, hosts] = await Promise.all([this.repo.byId(id), this.visibleHosts(within)]);
    if (!group) throw groupNotFound(id);
    const members = groupMembers(group, hosts).map(memberView);
    return { ...view(group, members.length), members };
  }

  /** The members a group with these host ids and rules would have now. */
  async preview(definition: GroupDefinition): Promise<GroupMemberView[]> {
    checked(definition);
    return groupMembers(definition, await this.hosts.list()).map(memberView);
  }

  /** The groups a host is in. */
  async ofHost(hostId: string): Promise<{ id: string; name: string }[]> {
    const [groups, hosts] = await Promise.all([this.repo.list(), this.hosts.list()]);
    const host = hosts.filter((h) => h.id === hostId);
    return groups.filter((g) => groupMembers(g, host).length > 0).map((g) => ({ id: g.id, name: g.name }));
  }

  /** The ids of the hosts in a group now; `group/not_found` when there is no such group. */
  async hostsOf(groupId: string): Promise<Set<string>> {
    const [group, hosts] = await Promise.all([this.repo.byId(groupId), this.hosts.list()]);
    if (!group) throw groupNotFound(groupId);
    return memberIds([group], hosts);
  }

  /** The definitions of these groups (those that exist), to match hosts against later. */
  async definitions(ids: readonly string[]): Promise<GroupRecord[]> {
    const wanted = new Set(ids);
    return (await this.repo.list()).filter((g) => wanted.has(g.id));
  }

  /** The ids of the hosts in any of these groups now; groups that no longer exist hold none. */
  async hostsOfAny(groupIds: readonly string[]): Promise<Set<string>> {
    const wanted = new Set(groupIds);
    const [groups, hosts] = await Promise.all([this.repo.list(), this.hosts.list()]);
    return memberIds(groups.filter((g) => wanted.has(g.id)), hosts);
  }

  /**
   * The host ids a user may see and act on: null (every host) for admins and for monitors without
   * a limit; else the members of the groups they are limited to, now (a deleted group holds none).
   */
  async scopeOf(user: SessionUser): Promise<ReadonlySet<string> | null> {
    if (user.role === 'admin') return null;
    const limit = await this.repo.userLimit(user.id);
    return limit === null ? null : this.hostsOfAny(limit);
  }

  /** The groups a user is limited to (null: every host), with their names. */
  async limitOf(userId: string): Promise<{ group_ids: string[] | null }> {
    if (!(await this.users.byId(userId))) throw userNotFound(userId);
    return { group_ids: await this.repo.userLimit(userId) };
  }

  /** Limits a monitor to groups (null lifts the limit); admins always see every host. */
  async setLimit(userId: string, groupIds: string[] | null, actor: Actor): Promise<{ group_ids: string[] | null }> {
    const user = await this.users.byId(userId);
    if (!user) throw userNotFound(userId);
    if (user.role === 'admin' && groupIds !== null) throw new AppError('group/admin_unlimited', 'Admins see every host; only monitors can be limited to groups');
    const ids = groupIds === null ? null : [...new Set(groupIds)];
    if (ids) {
      const known = new Set((await this.repo.list()).map((g) => g.id));
      const unknown = ids.filter((id) => !known.has(id));
      if (unknown.length > 0) throw new AppError('group/not_found', 'No such group', { details: { ids: unknown } });
    }
    await this.repo.setUserLimit(userId, ids);
    await this.audit.record({ action: 'user.host_groups_set', actor, target: `user:${userId}`, details: { groups: ids } });
    return { group_ids: ids };
  }

  async create(input: GroupInput, actor: Actor): Promise<GroupView> {
    checked(input);
    const now = this.clock.now();
    const record: GroupRecord = { id: randomUUID(), ...this.fields(input), created_by: actor.user?.username ?? null, created_ms: now, updated_ms: now };
    if (!(await this.repo.insert(record))) throw duplicate(record.name);
    await this.audit.record({ action: 'group.created', actor, target: `group:${record.id}`, details: summary(record) });
    return view(record, groupMembers(record, await this.hosts.list()).length);
  }

  async update(id: string, input: GroupInput, actor: Actor): Promise<GroupView> {
    checked(input);
    const current = await this.repo.byId(id);
    if (!current) throw groupNotFound(id);
    const record: GroupRecord = { ...current, ...this.fields(input), updated_ms: this.clock.now() };
    const result = await this.repo.replace(record);
    if (result === 'not_found') throw groupNotFound(id);
    if (result === 'duplicate') throw duplicate(record.name);
    await this.audit.record({ action: 'group.updated', actor, target: `group:${id}`, details: summary(record) });
    return view(record, groupMembers(record, await this.hosts.list()).length);
  }

  /** Refused while a policy names the group: deleting it would silently drop what the policy asks for its hosts. */
  async remove(id: string, actor: Actor): Promise<void> {
    const current = await this.repo.byId(id);
    if (!current) throw groupNotFound(id);
    const users = await this.usedBy(id);
    if (users.length > 0) {
      throw new AppError('group/in_use', `The group is named in the ${users.join(', ')}: remove it there first`, { details: { id, used_by: users } });
    }
    if (!(await this.repo.remove(id))) throw groupNotFound(id);
    await this.audit.record({ action: 'group.deleted', actor, target: `group:${id}`, details: { name: current.name } });
  }

  private async visibleHosts(within: ReadonlySet<string> | null): Promise<Host[]> {
    const hosts = await this.hosts.list();
    return within ? hosts.filter((h) => within.has(h.id)) : hosts;
  }

  private fields(input: GroupInput): Pick<GroupRecord, 'name' | 'description' | 'host_ids' | 'rules'> {
    return { name: input.name, description: input.description, host_ids: [...new Set(input.host_ids)], rules: input.rules };
  }
}

function memberIds(groups: readonly GroupDefinition[], hosts: readonly Host[]): Set<string> {
  const ids = new Set<string>();
  for (const g of groups) for (const m of groupMembers(g, hosts)) ids.add(m.host.id);
  return ids;
}

function summary(g: GroupRecord): Record<string, unknown> {
  const { host_patterns, os_families, agent_products, cidrs } = g.rules;
  return { name: g.name, hosts: g.host_ids.length, host_patterns, os_families, agent_products, cidrs };
}
