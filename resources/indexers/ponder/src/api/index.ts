import { Hono } from "hono";

// Forkscope reads the tables directly; Ponder only requires an API file to exist.
const app = new Hono();
export default app;
