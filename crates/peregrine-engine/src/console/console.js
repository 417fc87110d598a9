// Peregrine's operations console. No framework, no build: see console/mod.rs.
// Every value from the engine is put in the page with textContent (never as
// HTML), every URL is relative, the token lives in this page's memory only.
'use strict';

const POLL_MS = 1000;
const HISTORY = 120;
const state = {
  token: '',
  sessions: [],
  sort: { key: 'name', dir: 1 },
  openEvents: null,
  msgQuery: null,
  nextOffset: null,
  engine: [],
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('data-')) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function fmtTime(ms) {
  if (!ms) return '';
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

function fmtCount(n) {
  if (n >= 1e9) return (n / 1e9).toFixed(1) + 'G';
  if (n >= 1e6) return (n / 1e6).toFixed(1) + 'M';
  if (n >= 1e4) return (n / 1e3).toFixed(1) + 'k';
  return String(n);
}

function fmtMicros(ns) {
  if (ns >= 1e6) return (ns / 1e6).toFixed(1) + ' ms';
  return (ns / 1e3).toFixed(0) + ' µs';
}

async function getJson(url) {
  const r = await fetch(url, { cache: 'no-store' });
  const text = await r.text();
  if (!r.ok) throw new Error(text.trim() || r.status + '');
  return JSON.parse(text);
}

// ---- the result line ----
function showResult(text, ok) {
  const r = $('result');
  r.textContent = text;
  r.className = ok ? 'ok' : 'err';
  r.hidden = false;
}

// ---- token and mode ----
function updateMode() {
  state.token = $('token').value.trim();
  const m = $('mode');
  m.textContent = state.token ? 'actions enabled' : 'read-only';
  m.className = state.token ? 'armed' : 'readonly';
  for (const b of document.querySelectorAll('button.act')) b.disabled = !state.token;
}

// ---- sessions ----
function rowValue(s, key) {
  switch (key) {
    case 'rejects': return s.rejects_received + s.rejects_sent;
    case 'rtt': return s.heartbeat_rtt.count ? s.heartbeat_rtt.sum_ns / s.heartbeat_rtt.count : -1;
    case 'last_logon': return s.last_logon || 0;
    default: return s[key] === null || s[key] === undefined ? '' : s[key];
  }
}

function stateText(s) {
  if (s.logged_on) return s.slow_consumer ? 'LoggedOn (slow consumer)' : 'LoggedOn';
  if (!s.enabled) return s.state + ' (disabled)';
  return s.state;
}

function why(s) {
  const parts = [];
  if (s.note) parts.push(s.note);
  if (s.slow_consumer) parts.push('slow consumer: ' + s.pending_outbound + ' bytes pending');
  if (s.schedule && !s.logon_allowed && s.schedule_changes_at) {
    parts.push('outside its schedule until ' + fmtTime(s.schedule_changes_at));
  }
  return parts.join('; ');
}

const ACTIONS = [
  ['logon', 'Logon'],
  ['logout', 'Logout'],
  ['testrequest', 'TestRequest'],
  ['seqnum', 'Seq…'],
  ['reset', 'Reset'],
];

function renderSessions() {
  const filter = $('filter').value.trim().toLowerCase();
  const onlyDown = $('only-down').checked;
  const { key, dir } = state.sort;
  const rows = state.sessions
    .filter((s) => !onlyDown || !s.logged_on)
    .filter((s) => !filter || [s.name, s.state, s.role, s.note || '', why(s)].join(' ').toLowerCase().includes(filter))
    .sort((a, b) => {
      const x = rowValue(a, key), y = rowValue(b, key);
      return (x < y ? -1 : x > y ? 1 : 0) * dir || (a.name < b.name ? -1 : 1);
    });
  const body = $('sessions').tBodies[0];
  const fresh = rows.map((s) => {
    const rtt = s.heartbeat_rtt.count ? fmtMicros(s.heartbeat_rtt.sum_ns / s.heartbeat_rtt.count) : '';
    const name = el('a', { href: '#', class: 'name', title: 'messages of this session' }, s.name);
    name.addEventListener('click', (e) => { e.preventDefault(); openMessages(s.name); });
    const ev = el('button', { type: 'button', class: 'small', title: 'event log' }, 'events');
    ev.addEventListener('click', () => showEvents(s.name));
    const actions = el('td', { class: 'actions' });
    for (const [action, label] of ACTIONS) {
      const b = el('button', { type: 'button', class: 'act small', 'data-action': action, disabled: !state.token }, label);
      b.addEventListener('click', () => confirmAction(s, action));
      actions.append(b);
    }
    actions.append(ev);
    const tr = el('tr', { 'data-session': s.name, class: s.logged_on ? 'up' : s.enabled ? 'down' : 'disabled' },
      el('td', {}, name),
      el('td', { class: 'role' }, s.role),
      el('td', { class: 'state' }, stateText(s)),
      el('td', { class: 'why' }, why(s)),
      el('td', { class: 'num next_sender_seq' }, s.next_sender_seq),
      el('td', { class: 'num next_target_seq' }, s.next_target_seq),
      el('td', { class: 'schedule' }, s.schedule || 'always'),
      el('td', { class: 'last_logon' }, fmtTime(s.last_logon)),
      el('td', { class: 'num' }, fmtCount(s.messages_in)),
      el('td', { class: 'num' }, fmtCount(s.messages_out)),
      el('td', { class: 'num' }, fmtCount(s.bytes_in)),
      el('td', { class: 'num' }, fmtCount(s.bytes_out)),
      el('td', { class: 'num' }, s.resends_asked + '/' + s.resends_answered),
      el('td', { class: 'num' }, s.rejects_received + '/' + s.rejects_sent),
      el('td', { class: 'num rtt' }, rtt),
      actions);
    return tr;
  });
  body.replaceChildren(...fresh);
  const up = state.sessions.filter((s) => s.logged_on).length;
  $('counts').textContent = `${up} of ${state.sessions.length} logged on; ${rows.length} shown`;
  for (const th of $('sessions').tHead.rows[0].cells) {
    th.classList.toggle('sorted', th.dataset.key === key);
    th.classList.toggle('desc', th.dataset.key === key && dir < 0);
  }
}

async function pollSessions() {
  try {
    state.sessions = await getJson('api/sessions');
    renderSessions();
    fillSessionSelect();
    $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
    $('updated').className = '';
  } catch (e) {
    $('updated').textContent = 'not updated: ' + e.message;
    $('updated').className = 'stale';
  }
}

async function showEvents(name) {
  state.openEvents = name;
  const title = $('events-title'), pre = $('events');
  title.hidden = false; pre.hidden = false;
  title.textContent = 'Event log of ' + name;
  try {
    const ev = await getJson('api/events?SESSION=' + encodeURIComponent(name));
    pre.textContent = ev.lines.slice(-60).join('\n');
  } catch (e) {
    pre.textContent = e.message;
  }
}

// ---- actions ----
function confirmAction(s, action) {
  if (!state.token) { showResult('Give the admin token first.', false); return; }
  const d = $('confirm');
  const titles = {
    logon: 'Allow ' + s.name + ' to log on',
    logout: 'Log ' + s.name + ' out',
    testrequest: 'Send a TestRequest on ' + s.name,
    seqnum: 'Set the sequence numbers of ' + s.name,
    reset: 'Reset the sequence numbers of ' + s.name + ' to 1',
  };
  const what = {
    logon: 'It may log on again (an initiator connects, an acceptor takes its Logon).',
    logout: 'It logs out and stays down until Logon.' + (s.logged_on ? '' : ' (It is not logged on now.)'),
    testrequest: 'A TestRequest is sent now; its Heartbeat is a round-trip.',
    seqnum: `Now: next sender ${s.next_sender_seq}, next target ${s.next_target_seq}. Leave a box empty to keep it.`,
    reset: 'Both numbers go back to 1 and the stored messages are forgotten' + (s.connected ? ', after a Logout.' : '.'),
  };
  $('confirm-title').textContent = titles[action];
  $('confirm-what').textContent = what[action];
  $('confirm-text-row').hidden = action !== 'logout';
  $('confirm-sender-row').hidden = action !== 'seqnum';
  $('confirm-target-row').hidden = action !== 'seqnum';
  $('confirm-text').value = '';
  $('confirm-sender').value = '';
  $('confirm-target').value = '';
  d.dataset.action = action;
  d.dataset.session = s.name;
  d.showModal();
}

async function runAction(name, action) {
  const before = state.sessions.find((s) => s.name === name);
  let url = action + '?SESSION=' + encodeURIComponent(name);
  if (action === 'logout' && $('confirm-text').value.trim()) {
    url += '&TEXT=' + encodeURIComponent($('confirm-text').value.trim());
  }
  if (action === 'seqnum') {
    const sender = $('confirm-sender').value.trim(), target = $('confirm-target').value.trim();
    if (!sender && !target) { showResult('Give a sender or a target sequence number.', false); return; }
    if ((sender && !/^\d+$/.test(sender)) || (target && !/^\d+$/.test(target))) {
      showResult('A sequence number is a whole number from 1.', false); return;
    }
    if (sender) url += '&NEXTSENDERSEQNUM=' + sender;
    if (target) url += '&NEXTTARGETSEQNUM=' + target;
  }
  const headers = { Authorization: 'Bearer ' + state.token };
  const who = $('operator').value.trim();
  if (who) headers['X-Peregrine-Operator'] = who;
  let r, text;
  try {
    r = await fetch(url, { headers, cache: 'no-store' });
    text = (await r.text()).trim();
  } catch (e) {
    showResult(action + ' failed: ' + e.message, false); return;
  }
  if (r.status === 401) { showResult('Refused: ' + text + ' (check the token).', false); return; }
  let change = '';
  if (r.ok && action === 'seqnum' && before) {
    const m = /next_sender_seq=(\d+) next_target_seq=(\d+)/.exec(text);
    if (m) change = ` (sender ${before.next_sender_seq} → ${m[1]}, target ${before.next_target_seq} → ${m[2]})`;
  }
  showResult(text + change, r.ok);
  await pollSessions();
  if (state.openEvents === name) showEvents(name);
}

// ---- messages ----
function fillSessionSelect() {
  const sel = $('msg-session');
  const names = state.sessions.filter((s) => s.has_log).map((s) => s.name);
  const have = Array.from(sel.options).map((o) => o.value);
  if (names.join('\n') === have.join('\n')) return;
  const current = sel.value;
  sel.replaceChildren(...names.map((n) => el('option', { value: n }, n)));
  if (names.includes(current)) sel.value = current;
}

function openMessages(name) {
  switchView('messages');
  fillSessionSelect();
  $('msg-session').value = name;
  search(false);
}

const SUMMARY_TAGS = [11, 41, 37, 55, 54, 38, 44, 39, 150, 14, 58, 45, 112, 7, 16, 36, 373];

function summary(fields) {
  const parts = [];
  for (const tag of SUMMARY_TAGS) {
    const f = fields.find((x) => x.tag === tag);
    if (f) parts.push((f.name || tag) + '=' + f.value + (f.enum ? ' (' + f.enum + ')' : ''));
  }
  return parts.join('  ');
}

function fieldList(fields) {
  const ul = el('ul', { class: 'fields' });
  for (const f of fields) {
    const li = el('li', {},
      el('span', { class: 'tag' }, f.tag),
      el('span', { class: 'fname' }, f.name || '?'),
      el('span', { class: 'value' }, f.value),
      f.enum ? el('span', { class: 'enum' }, f.enum) : null);
    if (f.groups) {
      f.groups.forEach((g, i) => {
        li.append(el('div', { class: 'instance' }, '#' + (i + 1)), fieldList(g));
      });
    }
    ul.append(li);
  }
  return ul;
}

function messageRows(items, append) {
  const body = $('messages').tBodies[0];
  const own = (name) => { const m = /:([^:]*)->/.exec(name); return m ? m[1] : ''; };
  const rows = [];
  for (const it of items) {
    const m = it.message;
    const out = m.sender === own(it.session);
    const detail = el('tr', { class: 'detail', hidden: true }, el('td', { colSpan: 6 }, fieldList(m.fields)));
    const tr = el('tr', { class: 'msg', 'data-offset': it.offset },
      el('td', { class: 'time' }, m.time || ''),
      el('td', {}, it.session),
      el('td', { class: out ? 'out' : 'in' }, out ? 'out' : 'in'),
      el('td', { class: 'num' }, m.seq_num === null ? '' : m.seq_num),
      el('td', { class: 'type' }, (m.msg_type_name || '?') + ' (' + (m.msg_type || '') + ')'),
      el('td', { class: 'summary' }, summary(m.fields) + (m.problems ? '  ⚠ ' + m.problems.join('; ') : '')));
    tr.addEventListener('click', () => { detail.hidden = !detail.hidden; });
    rows.push(tr, detail);
  }
  if (append) body.append(...rows); else body.replaceChildren(...rows);
}

function buildQuery() {
  const p = new URLSearchParams();
  p.set('SESSION', $('msg-session').value);
  if ($('msg-type').value.trim()) p.set('MSGTYPE', $('msg-type').value.trim());
  if ($('msg-where').value.trim()) p.set('WHERE', $('msg-where').value.trim());
  if ($('msg-from').value.trim()) p.set('FROM', $('msg-from').value.trim());
  if ($('msg-to').value.trim()) p.set('TO', $('msg-to').value.trim());
  p.set('ADMIN', $('msg-admin').value);
  p.set('DIR', $('msg-dir').value);
  p.set('LIMIT', '100');
  return p;
}

async function search(more) {
  if (!$('msg-session').value) { $('msg-status').textContent = 'No session writes a messages log (FileLogPath).'; return; }
  if (!more) { state.msgQuery = buildQuery(); state.nextOffset = null; }
  const p = new URLSearchParams(state.msgQuery);
  if (more && state.nextOffset !== null) p.set('OFFSET', state.nextOffset);
  $('msg-status').textContent = 'searching…';
  try {
    const page = await getJson('api/messages?' + p.toString().replace(/\+/g, '%20'));
    messageRows(page.messages, more);
    state.nextOffset = page.next_offset;
    $('msg-more').disabled = page.next_offset === null;
    const n = $('messages').tBodies[0].querySelectorAll('tr.msg').length;
    $('msg-status').textContent = `${n} messages; read ${fmtCount(page.scanned)} bytes of ${fmtCount(page.file_len)}` +
      (page.next_offset === null ? '; end of the log' : '; More reads on');
  } catch (e) {
    $('msg-status').textContent = 'search failed: ' + e.message;
  }
}

async function follow() {
  const id = $('follow-id').value.trim();
  if (!id) return;
  $('msg-status').textContent = 'following ' + id + '…';
  try {
    const r = await getJson('api/follow?CLORDID=' + encodeURIComponent(id));
    messageRows(r.messages, false);
    $('msg-more').disabled = true;
    const status = $('msg-status');
    status.textContent = `${r.messages.length} messages with ClOrdID or OrigClOrdID ${id}`;
    // Each log is read back a bounded way: say which were read in part (or
    // not at all), and go on in one of them as a Messages search from there.
    const goOn = (label, list) => {
      if (!list.length) return;
      status.append(label);
      list.forEach((o, i) => {
        const b = el('button', { type: 'button', class: 'older' }, o.session);
        b.addEventListener('click', () => searchOlder(o.session, id, o.offset));
        status.append(...(i ? [', ', b] : [b]));
      });
    };
    goOn('; older lines not read in: ', r.older);
    goOn('; logs not read: ', r.not_searched.map((s) => ({ session: s, offset: null })));
  } catch (e) {
    $('msg-status').textContent = 'follow failed: ' + e.message;
  }
}

// Messages of `session` with ClOrdID or OrigClOrdID `id`, older than `offset`
// (where follow stopped; null: from the end).
function searchOlder(session, id, offset) {
  $('msg-session').value = session;
  for (const f of ['msg-type', 'msg-from', 'msg-to', 'msg-where']) $(f).value = '';
  $('msg-admin').value = 'show';
  $('msg-dir').value = 'back';
  state.msgQuery = buildQuery();
  state.msgQuery.set('ORDER', id);
  state.nextOffset = offset;
  $('messages').tBodies[0].replaceChildren();
  search(true);
}

// ---- engine charts ----
const CHARTS = [
  ['turns/s', (a, b, s) => (b.turns - a.turns) / s],
  ['idle turns %', (a, b) => { const t = b.turns - a.turns; return t ? 100 * (b.idle_turns - a.idle_turns) / t : 0; }],
  ['readiness events/s', (a, b, s) => (b.readiness_events - a.readiness_events) / s],
  ['sender messages/s', (a, b, s) => (b.sender_messages - a.sender_messages) / s],
  ['commands/s', (a, b, s) => (b.commands - a.commands) / s],
  ['connections accepted/s', (a, b, s) => (b.connections_accepted - a.connections_accepted) / s],
  ['fsyncs/s', (a, b, s) => (b.store_fsync.count - a.store_fsync.count) / s],
  ['fsync mean µs', (a, b) => { const n = b.store_fsync.count - a.store_fsync.count; return n ? (b.store_fsync.sum_ns - a.store_fsync.sum_ns) / n / 1e3 : 0; }],
  ['store write mean µs', (a, b) => { const n = b.store_write.count - a.store_write.count; return n ? (b.store_write.sum_ns - a.store_write.sum_ns) / n / 1e3 : 0; }],
];
const SVG = 'http://www.w3.org/2000/svg';

function chart(title, values) {
  const w = 240, h = 60;
  const max = Math.max(1e-9, ...values);
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.setAttribute('class', 'spark');
  const line = document.createElementNS(SVG, 'polyline');
  const pts = values.map((v, i) => `${(i * w / (HISTORY - 1)).toFixed(1)},${(h - 2 - v / max * (h - 4)).toFixed(1)}`);
  line.setAttribute('points', pts.join(' '));
  svg.append(line);
  const last = values.length ? values[values.length - 1] : 0;
  return el('figure', { class: 'chart' }, el('figcaption', {}, title + ': ',
    el('strong', {}, last >= 100 ? fmtCount(Math.round(last)) : last.toFixed(1)),
    el('span', { class: 'max' }, ' (max ' + (max >= 100 ? fmtCount(Math.round(max)) : max.toFixed(1)) + ')')), svg);
}

async function pollEngine() {
  try {
    const e = await getJson('api/engine');
    state.engine.push(e);
    if (state.engine.length > HISTORY + 1) state.engine.shift();
  } catch (_) { return; }
  if ($('view-engine').hidden) return;
  const figs = CHARTS.map(([title, f]) => {
    const vals = [];
    for (let i = 1; i < state.engine.length; i++) {
      const a = state.engine[i - 1], b = state.engine[i];
      const secs = Math.max(0.001, (b.time - a.time) / 1000);
      vals.push(f(a, b, secs));
    }
    return chart(title, vals);
  });
  $('charts').replaceChildren(...figs);
}

// ---- wiring ----
function switchView(name) {
  for (const t of document.querySelectorAll('.tab')) t.classList.toggle('active', t.dataset.view === name);
  for (const v of document.querySelectorAll('.view')) v.hidden = v.id !== 'view-' + name;
  if (name === 'engine') pollEngine();
}

document.addEventListener('DOMContentLoaded', () => {
  for (const t of document.querySelectorAll('.tab')) t.addEventListener('click', () => switchView(t.dataset.view));
  $('token').addEventListener('input', updateMode);
  $('auth').addEventListener('submit', (e) => e.preventDefault());
  $('filter').addEventListener('input', renderSessions);
  $('only-down').addEventListener('change', renderSessions);
  for (const th of $('sessions').tHead.rows[0].cells) {
    if (!th.dataset.key) continue;
    th.addEventListener('click', () => {
      const k = th.dataset.key;
      state.sort = { key: k, dir: state.sort.key === k ? -state.sort.dir : 1 };
      renderSessions();
    });
  }
  $('confirm-cancel').addEventListener('click', () => $('confirm').close());
  $('confirm-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const d = $('confirm');
    d.close();
    runAction(d.dataset.session, d.dataset.action);
  });
  $('msg-form').addEventListener('submit', (e) => { e.preventDefault(); search(false); });
  $('msg-more').addEventListener('click', () => search(true));
  $('follow-form').addEventListener('submit', (e) => { e.preventDefault(); follow(); });
  updateMode();
  pollSessions();
  pollEngine();
  setInterval(pollSessions, POLL_MS);
  setInterval(pollEngine, POLL_MS);
});
