//! Opening: reading the journal and the witness back, recovering from a crash,
//! converting or rewriting the journal.

use std::fs::{self, OpenOptions};

use crate::format::{
    self, JournalHeader, SeqState, COMMIT_LEN, JOURNAL_HEADER_LEN, JOURNAL_HEADER_LEN_V1,
    RECORD_HEADER_LEN, SLOT_LEN, SLOT_VERSION, SLOT_VERSION_V1,
};
use crate::index::Location;
use crate::posio;
use crate::recover::{self, Loss, LossKind, OnDamage, Recovery, Scan, Window};
use crate::StoreError;

use super::dir::{sync_dir, JOURNAL_REWRITE_FILE};
use super::FileStore;

/// Where the store stands after reading its files.
struct Loaded {
    epoch: u64,
    creation_time: i64,
    seqs: (u64, u64),
}

impl FileStore {
    /// Reads the durable state from disk, recovering from a crash, and
    /// rebuilds the index. `now` is the creation time of a new store.
    pub(super) fn load(&mut self, now: i64) -> Result<(), StoreError> {
        self.index.clear();
        self.pending.clear();
        self.journal_dirty = false;
        self.seqnums_dirty = false;
        self.recovery = Recovery::default();

        let mut slots = [0u8; 2 * SLOT_LEN];
        let n = posio::read_up_to_at(&self.seqnums, &mut slots, 0)
            .map_err(|e| StoreError::io("read sequence numbers", &self.seqnums_path, e))?;
        let witness = SeqState::decode_file(&slots[..n]);
        if let Some(w) = witness {
            self.witness = w;
        }
        let journal_len = self
            .journal
            .metadata()
            .map_err(|e| StoreError::io("stat journal", &self.journal_path, e))?
            .len();

        let mut header = [0u8; JOURNAL_HEADER_LEN as usize];
        let got = posio::read_up_to_at(&self.journal, &mut header, 0)
            .map_err(|e| StoreError::io("read journal header", &self.journal_path, e))?;
        let parsed = format::parse_journal_header(&header[..got]);
        let loaded = match (parsed, witness) {
            // A new store, or one whose creation was cut short before its
            // first commit: creation writes the witness before the journal.
            (None, None) if journal_len <= JOURNAL_HEADER_LEN => {
                return self.create(1, now, (1, 1));
            }
            (None, Some(w)) if journal_len < JOURNAL_HEADER_LEN_V1 => {
                // Cut short while being created or reset (the witness is
                // written first): the journal holds no record.
                return self.create(w.epoch, w.creation_time, (w.next_sender, w.next_target));
            }
            (None, None) => {
                return Err(StoreError::corrupt(
                    &self.journal_path,
                    0,
                    "not a Peregrine journal (bad magic), and no sequence-number witness",
                ))
            }
            (None, Some(_)) => {
                return Err(StoreError::corrupt(
                    &self.journal_path,
                    0,
                    "not a Peregrine journal (bad magic or damaged header)",
                ))
            }
            (Some(JournalHeader::V1 { epoch }), w) => {
                let Some(w) = w.filter(|w| w.version == SLOT_VERSION_V1) else {
                    return Err(StoreError::corrupt(
                        &self.seqnums_path,
                        0,
                        "no valid sequence-number slot next to a format-1 journal",
                    ));
                };
                if epoch != w.epoch {
                    // Format 1's interrupted reset: the journal is stale.
                    return self.create(w.epoch, w.creation_time, (w.next_sender, w.next_target));
                }
                return self.convert_v1(w, journal_len);
            }
            (Some(JournalHeader::V2 { epoch, .. }), Some(w))
                if w.version == SLOT_VERSION && w.epoch > epoch =>
            {
                // A reset wrote its witness, then stopped before it emptied
                // the journal: the journal is stale.
                return self.create(w.epoch, w.creation_time, (w.next_sender, w.next_target));
            }
            (
                Some(JournalHeader::V2 {
                    epoch,
                    creation_time,
                }),
                _,
            ) => Loaded {
                epoch,
                creation_time,
                seqs: (1, 1),
            },
        };
        self.epoch = loaded.epoch;
        self.creation_time = loaded.creation_time;

        let scan = self.scan_journal(journal_len, JOURNAL_HEADER_LEN, false)?;
        let same_epoch = witness.filter(|w| w.version == SLOT_VERSION && w.epoch == self.epoch);
        // No commit at all: a creation cut short after its witness.
        let (mut sender, mut target) = scan
            .state
            .unwrap_or_else(|| same_epoch.map_or(loaded.seqs, |w| (w.next_sender, w.next_target)));
        let mut losses = scan.losses;
        // The witness knows where a commit ended and its numbers: a journal
        // that ends before it lost acknowledged data. One that reaches it or
        // goes on holds that commit or later ones (the journal only grows
        // within an epoch, and a rewrite writes its witness first), so its
        // own numbers win, also when a later commit lowered one (an operator
        // may; a torn newest slot then leaves an older, higher witness).
        if let Some(w) = same_epoch {
            if w.journal_end > scan.committed_end {
                losses.push(Loss {
                    kind: LossKind::Truncated,
                    offset: scan.committed_end,
                    len: w.journal_end.saturating_sub(scan.committed_end),
                    seqs: (w.next_sender > sender).then(|| (sender, w.next_sender - 1)),
                });
                sender = sender.max(w.next_sender);
                target = target.max(w.next_target);
            }
        }
        if !losses.is_empty() {
            if self.config.on_damage == OnDamage::Refuse {
                return Err(StoreError::Damaged {
                    path: self.journal_path.clone(),
                    losses,
                });
            }
            self.recovery.losses = losses;
            return self.rewrite(&scan.entries, (sender, target), true);
        }
        for e in &scan.entries {
            self.index.insert(*e);
        }
        // After the last commit: zeros written ahead (kept for the next
        // appends), or a transaction cut short (cut off, the zeros with it).
        let uncommitted = self.data_end(scan.committed_end, journal_len)? - scan.committed_end;
        let mut reserved = journal_len;
        if uncommitted > 0 {
            self.recovery.uncommitted_bytes = uncommitted;
            self.journal
                .set_len(scan.committed_end)
                .and_then(|()| self.journal.sync_data())
                .map_err(|e| {
                    StoreError::io("cut off an uncommitted tail", &self.journal_path, e)
                })?;
            reserved = scan.committed_end;
        }
        // Only now, every fallible step done: a store dropped after a failed
        // open must not act on a half-set end (Drop cuts what lies past it).
        self.end = scan.committed_end;
        self.reserved = reserved;
        self.committed_end = scan.committed_end;
        self.next_sender = sender;
        self.next_target = target;
        self.committed = (sender, target);
        // A crash between a commit and its witness leaves the witness behind.
        let w = &self.witness;
        self.witness_due = (w.epoch, w.journal_end, (w.next_sender, w.next_target))
            != (self.epoch, self.committed_end, self.committed);
        // The journal's last writes may be in the page cache only (the
        // process that wrote them is gone): fsync it before a durable witness
        // may claim them.
        self.journal_dirty = self.witness_due;
        Ok(())
    }

    /// Where the bytes of the journal in `from..to` stop being all zeros:
    /// `from` if they are zeros only.
    pub(super) fn data_end(&mut self, from: u64, to: u64) -> Result<u64, StoreError> {
        if self.read_buf.is_empty() {
            self.read_buf.resize(4096, 0);
        }
        let mut data_end = from;
        let mut at = from;
        while at < to {
            let n = (to - at).min(self.read_buf.len() as u64) as usize;
            let buf = &mut self.read_buf[..n];
            posio::read_exact_at(&self.journal, buf, at)
                .map_err(|e| StoreError::io("read journal", &self.journal_path, e))?;
            if let Some(i) = buf.iter().rposition(|&b| b != 0) {
                data_end = at + i as u64 + 1;
            }
            at += n as u64;
        }
        Ok(data_end)
    }

    /// An empty journal of `epoch` with these sequence numbers, durably: the
    /// witness first (saying that nothing is committed beyond the header, so
    /// that a crash before the journal is written is no loss), then the
    /// journal's header and first commit, then the witness again.
    pub(super) fn create(
        &mut self,
        epoch: u64,
        creation_time: i64,
        seqs: (u64, u64),
    ) -> Result<(), StoreError> {
        self.epoch = epoch;
        self.creation_time = creation_time;
        self.index.clear();
        self.pending.clear();
        self.next_sender = seqs.0;
        self.next_target = seqs.1;
        self.committed = seqs;
        self.end = JOURNAL_HEADER_LEN;
        // Nothing of the old file is space of ours any more: a drop after a
        // failed step below must not cut or pad it.
        self.reserved = 0;
        self.committed_end = JOURNAL_HEADER_LEN;
        self.write_witness()?;
        self.sync_seqnums()?;
        let mut bytes = Vec::with_capacity(JOURNAL_HEADER_LEN as usize + COMMIT_LEN);
        bytes.extend_from_slice(&format::journal_header(epoch, creation_time));
        format::encode_commit(&mut bytes, seqs.0, seqs.1);
        let path = &self.journal_path;
        self.journal
            .set_len(0)
            .and_then(|()| posio::write_all_at(&self.journal, &bytes, 0))
            .and_then(|()| self.journal.sync_data())
            .map_err(|e| StoreError::io("write journal header", path, e))?;
        self.journal_dirty = false;
        self.end = bytes.len() as u64;
        self.reserved = self.end;
        self.committed_end = self.end;
        self.write_witness()?;
        sync_dir(&self.dir)
    }

    /// Converts a format-1 journal: its records up to the first bad one (a
    /// torn tail), with the witness's numbers (format 1 kept them there).
    fn convert_v1(&mut self, w: SeqState, journal_len: u64) -> Result<(), StoreError> {
        self.epoch = w.epoch;
        self.creation_time = w.creation_time;
        let scan = self.scan_journal(journal_len, JOURNAL_HEADER_LEN_V1, true)?;
        // A record stored after the slot was last written was never
        // acknowledged by an increment, but its number may have been used.
        let mut sender = w.next_sender;
        if let Some(max) = scan
            .entries
            .iter()
            .filter(|e| e.offset >= w.journal_end)
            .map(|e| e.seq)
            .max()
        {
            sender = sender.max(max + 1);
        }
        self.rewrite(&scan.entries, (sender, w.next_target), false)
    }

    /// Scans the journal's `journal_len` bytes from `start` (after the header)
    /// with the read buffer: format 1's records (`v1`) or transactions.
    fn scan_journal(&mut self, journal_len: u64, start: u64, v1: bool) -> Result<Scan, StoreError> {
        let mut buf = std::mem::take(&mut self.read_buf);
        let scanned = {
            let mut w = Window::new(&self.journal, journal_len, &mut buf);
            recover::scan(&mut w, start, v1)
        };
        self.read_buf = buf;
        scanned.map_err(|e| StoreError::io("read journal", &self.journal_path, e))
    }

    /// Writes a new journal holding `entries` (records of the current file)
    /// and one commit with `seqs`, and renames it over the journal. With
    /// `witness_first`, the witness of the new journal is written durably
    /// before the rename (a crash in between finds the old journal, its
    /// damage again, and a witness that claims no more than the new one);
    /// otherwise after it (a format-1 journal's slot must stay readable until
    /// the new journal is in place).
    fn rewrite(
        &mut self,
        entries: &[Location],
        seqs: (u64, u64),
        witness_first: bool,
    ) -> Result<(), StoreError> {
        let tmp_path = self.dir.join(JOURNAL_REWRITE_FILE);
        let tmp = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp_path)
            .map_err(|e| StoreError::io("create journal rewrite", &tmp_path, e))?;
        let io = |e| StoreError::io("write journal rewrite", &tmp_path, e);
        posio::write_all_at(
            &tmp,
            &format::journal_header(self.epoch, self.creation_time),
            0,
        )
        .map_err(io)?;
        self.index.clear();
        let mut at = JOURNAL_HEADER_LEN;
        let mut rec = Vec::new();
        for e in entries {
            rec.resize(RECORD_HEADER_LEN + e.len as usize, 0);
            posio::read_exact_at(&self.journal, &mut rec, e.offset)
                .map_err(|err| StoreError::io("read journal", &self.journal_path, err))?;
            posio::write_all_at(&tmp, &rec, at).map_err(io)?;
            self.index.insert(Location {
                seq: e.seq,
                offset: at,
                len: e.len,
            });
            at += rec.len() as u64;
        }
        rec.clear();
        format::encode_commit(&mut rec, seqs.0, seqs.1);
        posio::write_all_at(&tmp, &rec, at).map_err(io)?;
        at += rec.len() as u64;
        tmp.sync_data().map_err(io)?;
        self.committed_end = at;
        self.next_sender = seqs.0;
        self.next_target = seqs.1;
        self.committed = seqs;
        if witness_first {
            self.write_witness()?;
            self.sync_seqnums()?;
        }
        fs::rename(&tmp_path, &self.journal_path)
            .map_err(|e| StoreError::io("replace journal", &self.journal_path, e))?;
        sync_dir(&self.dir)?;
        self.journal = tmp;
        // The new file's end, once it is the journal (before, a failed rename
        // would leave them pointing into the old one).
        self.end = at;
        self.reserved = at;
        self.journal_dirty = false;
        self.recovery.rewritten = true;
        if !witness_first {
            self.write_witness()?;
            self.sync_seqnums()?;
        }
        Ok(())
    }
}
