/** Console users: the admin use cases and the first-start admin. */
export { UsersService, userView } from './users.service.js';
export { createUsersRoutes } from './users.routes.js';
export { usersRouter } from './users.router.js';
