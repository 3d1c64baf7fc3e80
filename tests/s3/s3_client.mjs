// The independent S3 client of the S3 tests (@aws-sdk/client-s3), set up
// from what a user of zamboni sets: ZAMBONI_S3_ENDPOINT, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_REGION (path-style addressing always: the
// test server is on loopback). Checksums only when an operation needs
// them: s3rver does not decode the aws-chunked bodies a trailer needs.
import { S3Client } from '@aws-sdk/client-s3';

export function s3Client(endpoint = process.env.ZAMBONI_S3_ENDPOINT, extra = {}) {
  if (!endpoint) throw new Error('ZAMBONI_S3_ENDPOINT is not set');
  // The SDK's note on node versions is noise in a test's output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  return new S3Client({
    endpoint,
    forcePathStyle: true,
    region: process.env.AWS_REGION || 'us-east-1',
    credentials: {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'S3RVER',
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'S3RVER',
    },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 1,
    ...extra,
  });
}

// s3://BUCKET/PREFIX -> { bucket, prefix } (prefix without leading slash).
export function parseS3Uri(uri) {
  const m = /^s3[an]?:\/\/([^/]+)\/?(.*)$/.exec(uri);
  if (!m) throw new Error(`not an s3:// URI: ${uri}`);
  return { bucket: m[1], prefix: m[2] };
}

export async function listAll(client, bucket, prefix) {
  const { ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  const out = [];
  let token;
  do {
    const r = await client.send(new ListObjectsV2Command({
      Bucket: bucket, Prefix: prefix || undefined, ContinuationToken: token }));
    for (const o of r.Contents ?? []) out.push({ key: o.Key, size: Number(o.Size) });
    token = r.IsTruncated ? r.NextContinuationToken : undefined;
  } while (token);
  return out;
}
