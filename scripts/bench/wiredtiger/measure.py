#!/usr/bin/env python3
"""Bytes on disk of documents stored in WiredTiger tables configured as
MongoDB configures a collection's table (docs/benchmarks.md#storage-on-wiredtiger). Dev only: runs in the venv of setup-venv.sh.

Reads a binary stream of records from a file or stdin:
  b'T' u8 n name[n]           select (creating) the table group `name`
  b'P' i64le key bson-doc     put: insert, or overwrite the key's value (an
                              update in place, as MongoDB writes an updated
                              document under its RecordId); the document's
                              own int32 length prefix gives its size
  b'D' i64le key              remove the key
  b'C'                        checkpoint (MongoDB checkpoints every 60 s)
Every group is three tables, one per block compressor (none, snappy, zstd),
each record written to all three. At the end: a final checkpoint, then one
JSON object on stdout: per group and compressor the .wt file's bytes, the
block manager's file size and bytes available for reuse, and the live keys
and their value bytes.

  measure.py [FILE] [--home DIR]   (--home keeps the database there)
  measure.py --self-check          opens snappy and zstd tables; exit 0 if it works
"""
import json
import os
import shutil
import struct
import sys
import tempfile

import wiredtiger

COMPRESSORS = ('none', 'snappy', 'zstd')

# MongoDB's wiredtiger_open: zstd at level 6 (storage.wiredTiger.engineConfig.zstdCompressionLevel's default).
CONNECTION = ('create,cache_size=512M,statistics=(fast),log=(enabled=false),'
              'builtin_extension_config=(zstd=(compression_level=6))')


def table_config(compressor):
    """A collection's table as WiredTigerRecordStore::generateCreateString makes it (defaults)."""
    return ('type=file,memory_page_max=10m,split_pct=90,leaf_value_max=64MB,checksum=on,'
            'block_compressor=%s,key_format=q,value_format=u,app_metadata=(formatVersion=1)'
            % ('' if compressor == 'none' else compressor))


class Store:
    def __init__(self, home):
        self.home = home
        self.conn = wiredtiger.wiredtiger_open(home, CONNECTION)
        self.session = self.conn.open_session()
        self.groups = {}  # name -> {compressor: cursor, 'live': {key: bytes}}
        self.current = None

    def select(self, name):
        if name not in self.groups:
            group = {'cursors': {}, 'live': {}, 'puts': 0, 'removes': 0, 'written': 0}
            for c in COMPRESSORS:
                uri = 'table:%s_%s' % (name, c)
                self.session.create(uri, table_config(c))
                group['cursors'][c] = self.session.open_cursor(uri, None, 'overwrite=true')
            self.groups[name] = group
        self.current = self.groups[name]

    def put(self, key, value):
        group = self.current
        for cursor in group['cursors'].values():
            cursor.set_key(key)
            cursor.set_value(value)
            cursor.insert()
        group['live'][key] = len(value)
        group['puts'] += 1
        group['written'] += len(value)

    def remove(self, key):
        group = self.current
        for cursor in group['cursors'].values():
            cursor.set_key(key)
            cursor.remove()
        group['live'].pop(key, None)
        group['removes'] += 1

    def checkpoint(self):
        self.session.checkpoint()

    def statistics(self, uri):
        wanted = {'block-manager: file size in bytes': 'blockFileBytes',
                  'block-manager: file bytes available for reuse': 'reusableBytes'}
        out = {}
        cursor = self.session.open_cursor('statistics:' + uri, None, None)
        while cursor.next() == 0:
            desc, _, value = cursor.get_value()
            if desc in wanted:
                out[wanted[desc]] = value
        cursor.close()
        return out

    def report(self):
        self.checkpoint()
        groups = {}
        for name, group in self.groups.items():
            tables = {}
            for c in COMPRESSORS:
                uri = 'table:%s_%s' % (name, c)
                stats = self.statistics(uri)
                stats['fileBytes'] = os.path.getsize(os.path.join(self.home, '%s_%s.wt' % (name, c)))
                tables[c] = stats
            groups[name] = {'documents': len(group['live']), 'bsonBytes': sum(group['live'].values()),
                            'puts': group['puts'], 'removes': group['removes'],
                            'writtenBytes': group['written'], 'tables': tables}
        return {'wiredtiger': wiredtiger.wiredtiger_version()[0], 'groups': groups}

    def close(self):
        self.conn.close()


def read_exact(stream, n):
    data = stream.read(n)
    if len(data) != n:
        raise EOFError('truncated record')
    return data


def apply(stream, store):
    while True:
        op = stream.read(1)
        if not op:
            return
        if op == b'T':
            (n,) = read_exact(stream, 1)
            store.select(read_exact(stream, n).decode('ascii'))
        elif op in (b'P', b'D'):
            (key,) = struct.unpack('<q', read_exact(stream, 8))
            if store.current is None:
                raise ValueError('a record before any table (T)')
            if op == b'D':
                store.remove(key)
                continue
            head = read_exact(stream, 4)
            (size,) = struct.unpack('<i', head)
            store.put(key, head + read_exact(stream, size - 4))
        elif op == b'C':
            store.checkpoint()
        else:
            raise ValueError('unknown record type %r' % op)


def self_check():
    home = tempfile.mkdtemp(prefix='statbucket-wt-check-')
    try:
        store = Store(home)
        store.select('check')
        store.put(1, b'\x05\x00\x00\x00\x00' * 200)
        store.checkpoint()
        report = store.report()
        store.close()
        assert report['groups']['check']['tables']['zstd']['fileBytes'] > 0
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main(argv):
    if '--self-check' in argv:
        self_check()
        return 0
    home = None
    if '--home' in argv:
        i = argv.index('--home')
        home = argv[i + 1]
        del argv[i:i + 2]
        os.makedirs(home, exist_ok=True)
    keep = home is not None
    home = home or tempfile.mkdtemp(prefix='statbucket-wt-')
    try:
        store = Store(home)
        if argv:
            with open(argv[0], 'rb') as f:
                apply(f, store)
        else:
            apply(sys.stdin.buffer, store)
        report = store.report()
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
        print('measure.py: %s: %s' % (type(err).__name__, err), file=sys.stderr)
        sys.exit(1)
