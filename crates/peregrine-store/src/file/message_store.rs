//! [`FileStore`] as a [`MessageStore`]: transactions, commits and resend reads.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::format::{self, COMMIT_LEN, RECORD_HEADER_LEN};
use crate::index::Location;
use crate::posio;
use crate::recover::Recovery;
use crate::{check_len, check_seq, MessageStore, StoreError, StoreObserver};

use super::{FileStore, FsyncPolicy};

impl MessageStore for FileStore {
    crate::seq_fields!();

    fn store(&mut self, seq: u64, msg: &[u8]) -> Result<(), StoreError> {
        check_seq(seq)?;
        let len = check_len(msg.len())?;
        let rec_len = RECORD_HEADER_LEN + msg.len();
        if self.pending.len() + rec_len + COMMIT_LEN > self.pending.capacity() {
            let started = self.clock();
            self.write_ahead()?;
            if let (Some(o), Some(t)) = (&self.observer, started) {
                o.on_write(t.elapsed());
            }
        }
        let offset = self.journal_len();
        format::encode_record(&mut self.pending, seq, msg);
        self.index.insert(Location { seq, offset, len });
        Ok(())
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        if !self.has_changes() {
            return Ok(());
        }
        // The previous commit's witness, if its owner did not settle it.
        self.write_witness_if_due()?;
        let before = self.pending.len();
        format::encode_commit(&mut self.pending, self.next_sender, self.next_target);
        let started = self.clock();
        if let Err(e) = self.write_ahead() {
            self.pending.truncate(before);
            return Err(e);
        }
        if let (Some(o), Some(t)) = (&self.observer, started) {
            o.on_write(t.elapsed());
        }
        self.stats.commits += 1;
        match self.config.fsync {
            FsyncPolicy::Never => {}
            FsyncPolicy::EveryCommit => {
                self.sync_journal()?;
                self.last_sync = Instant::now();
            }
            FsyncPolicy::EveryMillis(ms) => {
                if self.last_sync.elapsed() >= Duration::from_millis(ms) {
                    self.sync_files()?;
                }
            }
        }
        // Committed once the policy's fsync succeeded: after a failed one the
        // next commit writes and fsyncs again, and no witness claims this one.
        self.committed = (self.next_sender, self.next_target);
        self.committed_end = self.end;
        self.witness_due = true;
        Ok(())
    }

    fn settle(&mut self) -> Result<(), StoreError> {
        self.write_witness_if_due()?;
        // Room ahead only after small commits: a large batch's own write
        // amortises its page allocations, and zeros written ahead of it would
        // only double its writes (streaming lost 15 % to them).
        let grew = self.end.saturating_sub(self.settled_end);
        self.settled_end = self.end;
        if grew < crate::index::SMALL_GROWTH {
            self.reserve_ahead();
            self.index.keep_room_ahead();
        }
        Ok(())
    }

    fn for_each_in_range(
        &mut self,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), StoreError> {
        // Records of the current transaction are read back from the file
        // like the others (they stay uncommitted until the commit record).
        self.write_ahead()?;
        let entries = self.index.range(begin, end);
        let chunk = self.config.read_chunk as u64;
        let rec_len = |e: &Location| RECORD_HEADER_LEN as u64 + u64::from(e.len);
        let mut i = 0;
        while i < entries.len() {
            // Coalesce records that are adjacent in the journal into one read.
            let start = entries[i].offset;
            let mut stop = start + rec_len(&entries[i]);
            let mut j = i + 1;
            while j < entries.len()
                && entries[j].offset == stop
                && stop + rec_len(&entries[j]) - start <= chunk
            {
                stop += rec_len(&entries[j]);
                j += 1;
            }
            let n = (stop - start) as usize;
            if self.read_buf.len() < n {
                // The whole chunk at once (made by the first resend, not on open):
                // later reads of any size up to it allocate nothing.
                self.read_buf.resize(n.max(self.config.read_chunk), 0);
            }
            let buf = &mut self.read_buf[..n];
            posio::read_exact_at(&self.journal, buf, start)
                .map_err(|e| StoreError::io("read journal record", &self.journal_path, e))?;
            for e in &entries[i..j] {
                let at = (e.offset - start) as usize;
                let rec = &buf[at..at + rec_len(e) as usize];
                let ok = match format::parse_record_header(rec) {
                    Some(h) => {
                        h.seq == e.seq
                            && h.len == e.len
                            && format::record_crc_ok(rec, &h, &rec[RECORD_HEADER_LEN..])
                    }
                    None => false,
                };
                if !ok {
                    return Err(StoreError::corrupt(
                        &self.journal_path,
                        e.offset,
                        "record changed on disk since it was written",
                    ));
                }
                visitor(e.seq, &rec[RECORD_HEADER_LEN..]);
            }
            i = j;
        }
        Ok(())
    }

    fn reset(&mut self, creation_time: i64) -> Result<(), StoreError> {
        // The witness of the new epoch first (durably), then the journal: a
        // crash in between leaves a journal of the old epoch, which the next
        // open recognises as stale and empties.
        let epoch = self.epoch.wrapping_add(1);
        self.create(epoch, creation_time, (1, 1))?;
        self.last_sync = Instant::now();
        Ok(())
    }

    fn refresh(&mut self) -> Result<(), StoreError> {
        self.commit()?;
        let now = self.creation_time;
        self.load(now)
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        self.commit()?;
        self.sync_files()
    }

    fn sync_interval(&self) -> Option<Duration> {
        match self.config.fsync {
            FsyncPolicy::EveryMillis(ms) => Some(Duration::from_millis(ms)),
            _ => None,
        }
    }

    fn sync_if_due(&mut self) -> Result<bool, StoreError> {
        FileStore::sync_if_due(self)
    }

    fn recovery(&self) -> Option<&Recovery> {
        Some(&self.recovery)
    }

    fn set_observer(&mut self, observer: Option<Arc<dyn StoreObserver>>) {
        self.observer = observer;
    }
}
