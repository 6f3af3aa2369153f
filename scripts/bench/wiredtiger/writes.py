#!/usr/bin/env python3
"""Bytes WiredTiger writes to disk, and the CPU it spends, for mongod's writes
of a day of ingest (docs/adr/0056-wiredtiger-write-amplification.md,
scripts/bench/bench-wt-writes.js). Dev only: runs in the venv of setup-venv.sh.

One WiredTiger database set as mongod sets it (the journal on, snappy), each
collection a table as MongoDB makes one (measure.py's table_config, with the
compressor asked for) and its _id index a table of its own. Two modes:
  standalone  every table logged: the journal holds each write, a whole
              document for an update that is not in place
  replset     a replica set's: collection tables unlogged, each write's oplog
              entry inserted in the logged oplog table in the same
              transaction, commit timestamps, the stable timestamp moved to
              each checkpoint and the oldest 300 s behind it
              (minSnapshotHistoryWindowInSeconds), a whole-document update
              sent as a modify when WiredTiger finds one (mongod's rule:
              over 1 KB, at most 16 changes and 10 % of the document)

Reads frames (u32le length, then whole records) from stdin:
  b'T' u8 n name[n]          select (creating) the collection `name`
  b'B' u64 ts                begin a transaction (ts: its commit timestamp)
  b'E'                       commit it
  b'I' i64 rid u16 k key[k] u16 v val[v] bson
                             insert a document and its _id index entry
  b'P' i64 rid u8 new u16 k key[k] u16 v val[v] bson
                             put a document whole (new: insert it and its key)
  b'M' i64 rid u16 n n*(u32 off, u32 size, u32 len, data[len])
                             an update in place: WiredTiger's modify
  b'U' i64 rid u16 n n*(u32 off, u32 size, u32 len, data[len])
                             an update of the whole document: these edits of
                             the stored value make the new one
  b'O' bson                  an oplog entry (replset; ignored standalone)
  b'C' u64 ts                checkpoint (replset: stable = ts first)
  b'S' / b'Z'                start / end a measured segment
  b'K'                       mark the tables' live bytes
A transaction's records are read before it is timed: CPU counts WiredTiger's
work and the binding's calls, not this parser. At the end one JSON object on
stdout: per segment the statistics cursor's deltas and the CPU, the marks.

  writes.py --compressor snappy|zstd|none --mode standalone|replset [--home DIR]
"""
import json
import os
import shutil
import struct
import sys
import tempfile
import time

import wiredtiger
from wiredtiger.packing import pack

from measure import table_config

HISTORY_WINDOW = 300 * 1000 * 1000  # 300 s in the stream's timestamp unit (µs)

# mongod's wiredtiger_open (WiredTigerKVEngine): the journal on, snappy-compressed; the
# cache a mongod on ~9 GB of RAM has (half of RAM − 1 GB): with 1 GB the replica set's
# 300 s of versions passed its eviction targets and pages were written between checkpoints
CONNECTION = ('create,cache_size=4G,statistics=(fast),'
              'log=(enabled=true,remove=true,compressor=snappy),'
              'builtin_extension_config=(zstd=(compression_level=6)),'
              'eviction=(threads_min=4,threads_max=4)')

INDEX_CONFIG = ('type=file,internal_page_max=16k,leaf_page_max=16k,checksum=on,prefix_compression=true,'
                'block_compressor=,key_format=u,value_format=u,app_metadata=(formatVersion=8)')

STATS = {
    'block-manager: bytes written': 'blockBytes',
    'block-manager: bytes written for checkpoint': 'checkpointBytes',
    'log: log bytes written': 'logBytes',
    'log: log bytes of payload data': 'logPayloadBytes',
    'cache: history store table insert calls': 'historyInserts',
    'cache: the number of times full update inserted to history store': 'historyFullValues',
    'cache: the number of times reverse modify inserted to history store': 'historyReverseModifies',
    'cache: history store table on-disk size': 'historyBytes',
    'cache: modified pages evicted': 'dirtyEvictions',
}

U32 = struct.Struct('<I')
U16 = struct.Struct('<H')
I64 = struct.Struct('<q')
U64 = struct.Struct('<Q')
ENTRY = struct.Struct('<III')


class Store:
    def __init__(self, home, compressor, mode):
        self.replset = mode == 'replset'
        self.compressor = compressor
        self.conn = wiredtiger.wiredtiger_open(home, CONNECTION)
        self.session = self.conn.open_session()
        self.tables = {}
        self.current = None
        self.keys = {}
        self.oplog = None
        self.oplog_key = 0
        if self.replset:
            # the oplog: a collection of the server's default compressor, logged
            self.session.create('table:oplog', table_config('snappy') + ',log=(enabled=true)')
            self.oplog = self.session.open_cursor('table:oplog', None, None)
        self.segment = None
        self.segments = []
        self.marks = []
        self.cpu = {'ops': 0.0, 'checkpoint': 0.0}
        self.counts = self.zero_counts()

    @staticmethod
    def zero_counts():
        return {'inserts': 0, 'modifies': 0, 'updates': 0, 'modifiedUpdates': 0, 'puts': 0, 'oplog': 0, 'transactions': 0}

    def key(self, rid):
        k = self.keys.get(rid)
        if k is None:
            k = self.keys[rid] = pack('q', rid)
        return k

    def select(self, name):
        if name not in self.tables:
            logged = 'false' if self.replset else 'true'
            self.session.create('table:' + name, table_config(self.compressor) + ',log=(enabled=%s)' % logged)
            self.session.create('table:' + name + '_id', INDEX_CONFIG + ',log=(enabled=%s)' % logged)
            self.tables[name] = (self.session.open_cursor('table:' + name, None, None),
                                 self.session.open_cursor('table:' + name + '_id', None, None))
        self.current = self.tables[name]

    # the operations of a transaction, each a closure over its parsed record

    def op_insert(self, rid, ikey, ival, doc):
        cursor, index = self.current

        def run():
            cursor._set_key(self.key(rid))
            cursor._set_value(doc)
            cursor.insert()
            index._set_key(ikey)
            index._set_value(ival)
            index.insert()
            self.counts['inserts'] += 1
        return run

    def op_put(self, rid, new, ikey, ival, doc):
        cursor, index = self.current

        def run():
            cursor._set_key(self.key(rid))
            cursor._set_value(doc)
            if new:
                cursor.insert()
                index._set_key(ikey)
                index._set_value(ival)
                index.insert()
            else:
                cursor.update()
            self.counts['puts'] += 1
        return run

    def op_modify(self, rid, entries):
        cursor, _ = self.current
        mods = [wiredtiger.Modify(data, off, size) for off, size, data in entries]

        def run():
            cursor._set_key(self.key(rid))
            cursor.modify(mods)
            self.counts['modifies'] += 1
        return run

    def op_update(self, rid, edits):
        cursor, _ = self.current

        def run():
            # as mongod: read the stored document, write the new one
            cursor._set_key(self.key(rid))
            cursor.search()
            old = cursor.get_value()
            new = old
            for off, size, data in edits:
                new = new[:off] + data + new[off + size:]
            self.counts['updates'] += 1
            if self.replset and len(new) > 1024 and len(new) <= len(old) + len(new) // 10:
                try:
                    mods = wiredtiger.wiredtiger_calc_modify(self.session, old, new, len(new) // 10, 16)
                except wiredtiger.WiredTigerError:
                    mods = None
                if mods is not None:
                    cursor._set_key(self.key(rid))
                    if mods:
                        cursor.modify(mods)
                    else:
                        cursor.reserve()
                    self.counts['modifiedUpdates'] += 1
                    return
            cursor._set_key(self.key(rid))
            cursor._set_value(new)
            cursor.update()
        return run

    def op_oplog(self, entry):
        def run():
            self.oplog_key += 1
            self.oplog._set_key(self.key(self.oplog_key))
            self.oplog._set_value(entry)
            self.oplog.insert()
            self.counts['oplog'] += 1
        return run

    def transaction(self, ts, ops):
        t0 = time.process_time()
        self.session.begin_transaction()
        for run in ops:
            run()
        if self.replset:
            self.session.commit_transaction('commit_timestamp=%x' % ts)
        else:
            self.session.commit_transaction()
        if self.segment is not None:
            self.cpu['ops'] += time.process_time() - t0
            self.counts['transactions'] += 1

    def checkpoint(self, ts):
        t0 = time.process_time()
        if self.replset:
            self.conn.set_timestamp('stable_timestamp=%x,oldest_timestamp=%x' % (ts, max(1, ts - HISTORY_WINDOW)))
        self.session.checkpoint()
        if self.segment is not None:
            self.cpu['checkpoint'] += time.process_time() - t0

    def statistics(self):
        out = {v: 0 for v in STATS.values()}
        cursor = self.session.open_cursor('statistics:', None, None)
        while cursor.next() == 0:
            desc, _, value = cursor.get_value()
            if desc in STATS:
                out[STATS[desc]] = value
        cursor.close()
        return out

    def start(self):
        self.cpu = {'ops': 0.0, 'checkpoint': 0.0}
        self.counts = self.zero_counts()
        self.segment = self.statistics()

    def end(self):
        after = self.statistics()
        seg = {k: after[k] - self.segment[k] for k in after}
        seg['cpuOps'] = self.cpu['ops']
        seg['cpuCheckpoint'] = self.cpu['checkpoint']
        seg.update(self.counts)
        self.segments.append(seg)
        self.segment = None

    def live(self, uri):
        out = {}
        cursor = self.session.open_cursor('statistics:' + uri, None, None)
        while cursor.next() == 0:
            desc, _, value = cursor.get_value()
            if desc == 'block-manager: file size in bytes':
                out['file'] = value
            elif desc == 'block-manager: file bytes available for reuse':
                out['reusable'] = value
        cursor.close()
        return out['file'] - out['reusable']

    def mark(self):
        tables = {}
        for name in self.tables:
            tables[name] = {'live': self.live('table:' + name), 'indexLive': self.live('table:' + name + '_id')}
        self.marks.append({'tables': tables, 'oplogLive': self.live('table:oplog') if self.replset else 0})

    def close(self):
        self.conn.close()


def parse_entries(buf, at):
    (n,) = U16.unpack_from(buf, at)
    at += 2
    entries = []
    for _ in range(n):
        off, size, length = ENTRY.unpack_from(buf, at)
        at += 12
        entries.append((off, size, bytes(buf[at:at + length])))
        at += length
    return entries, at


def parse_doc(buf, at):
    (size,) = struct.unpack_from('<i', buf, at)
    return bytes(buf[at:at + size]), at + size


def parse_index(buf, at):
    (k,) = U16.unpack_from(buf, at)
    ikey = bytes(buf[at + 2:at + 2 + k])
    at += 2 + k
    (v,) = U16.unpack_from(buf, at)
    ival = bytes(buf[at + 2:at + 2 + v])
    return ikey, ival, at + 2 + v


def apply_frame(buf, store, pending):
    """pending: [ts, ops] of a transaction begun, or None"""
    at = 0
    end = len(buf)
    while at < end:
        op = buf[at:at + 1]
        at += 1
        if op == b'T':
            n = buf[at]
            name = bytes(buf[at + 1:at + 1 + n]).decode('ascii')
            at += 1 + n
            # a collection's cursors are chosen when an operation is parsed
            store.select(name)
        elif op == b'B':
            (ts,) = U64.unpack_from(buf, at)
            at += 8
            pending = [ts, []]
        elif op == b'E':
            store.transaction(pending[0], pending[1])
            pending = None
        elif op == b'I':
            (rid,) = I64.unpack_from(buf, at)
            ikey, ival, at = parse_index(buf, at + 8)
            doc, at = parse_doc(buf, at)
            pending[1].append(store.op_insert(rid, ikey, ival, doc))
        elif op == b'P':
            (rid,) = I64.unpack_from(buf, at)
            new = buf[at + 8]
            ikey, ival, at = parse_index(buf, at + 9)
            doc, at = parse_doc(buf, at)
            pending[1].append(store.op_put(rid, new, ikey, ival, doc))
        elif op == b'M':
            (rid,) = I64.unpack_from(buf, at)
            entries, at = parse_entries(buf, at + 8)
            pending[1].append(store.op_modify(rid, entries))
        elif op == b'U':
            (rid,) = I64.unpack_from(buf, at)
            edits, at = parse_entries(buf, at + 8)
            pending[1].append(store.op_update(rid, edits))
        elif op == b'O':
            entry, at = parse_doc(buf, at)
            if store.replset:
                pending[1].append(store.op_oplog(entry))
        elif op == b'C':
            (ts,) = U64.unpack_from(buf, at)
            at += 8
            store.checkpoint(ts)
        elif op == b'S':
            store.start()
        elif op == b'Z':
            store.end()
        elif op == b'K':
            store.mark()
        else:
            raise ValueError('unknown record type %r at %d' % (op, at - 1))
    return pending


def read_exact(stream, n):
    data = stream.read(n)
    if len(data) != n:
        raise EOFError('truncated frame')
    return data


def main(argv):
    args = {'--compressor': 'snappy', '--mode': 'standalone', '--home': None}
    i = 0
    while i < len(argv):
        if argv[i] not in args or i + 1 >= len(argv):
            raise ValueError('usage: writes.py --compressor snappy|zstd|none --mode standalone|replset [--home DIR]')
        args[argv[i]] = argv[i + 1]
        i += 2
    if args['--compressor'] not in ('none', 'snappy', 'zstd') or args['--mode'] not in ('standalone', 'replset'):
        raise ValueError('--compressor is none, snappy or zstd; --mode standalone or replset')
    home = args['--home']
    keep = home is not None
    if keep:
        os.makedirs(home, exist_ok=True)
    else:
        home = tempfile.mkdtemp(prefix='statbucket-wt-writes-')
    try:
        store = Store(home, args['--compressor'], args['--mode'])
        stream = sys.stdin.buffer
        pending = None
        while True:
            head = stream.read(4)
            if not head:
                break
            if len(head) != 4:
                raise EOFError('truncated frame header')
            (length,) = U32.unpack(head)
            pending = apply_frame(memoryview(read_exact(stream, length)), store, pending)
        report = {'wiredtiger': wiredtiger.wiredtiger_version()[0], 'mode': args['--mode'],
                  'compressor': args['--compressor'], 'segments': store.segments, 'marks': store.marks}
        store.close()
    finally:
        if not keep:
            shutil.rmtree(home, ignore_errors=True)
    json.dump(report, sys.stdout)
    sys.stdout.write('\n')
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as err:  # one clear line
        print('writes.py: %s: %s' % (type(err).__name__, err), file=sys.stderr)
        sys.exit(1)
