/**
 * An answer that is a file of bytes rather than an encoded value (a
 * backup): the codec sends its chunks as they come, with back-pressure
 * (transport/streamed-body.ts), under its own media type and headers,
 * whatever the request's Accept asked for.
 */
export class FileAnswer {
  constructor(
    readonly chunks: AsyncIterable<Buffer>,
    /** Headers of the answer beside Content-Type (the backup's seq, Content-Disposition). */
    readonly headers: Readonly<Record<string, string>>,
    readonly contentType = 'application/octet-stream',
  ) {}
}
